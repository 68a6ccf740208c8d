import { h2 } from './fast.js';

const FIRST = [
  'Northwind',
  'Bluebird',
  'Harbour',
  'Copperleaf',
  'Meridian',
  'Oakridge',
  'Silverline',
  'Brightwater',
  'Fernhill',
  'Kestrel',
  'Larkspur',
  'Redstone',
  'Thistle',
  'Wildflower',
  'Ashgrove',
  'Beacon',
  'Marlow',
  'Quill',
  'Saltmarsh',
  'Tidewell',
];
const SECOND = [
  'Trading',
  'Studio',
  'Supply Co',
  'Outfitters',
  'Digital',
  'Consulting',
  'Goods',
  'Labs',
  'Partners',
  'Works',
  'Home',
  'Collective',
];

/** The Sandbox company of a seed: its trading and legal names (the same for every platform). */
export function companyName(seed: number): { trading: string; legal: string; slug: string } {
  const first = FIRST[h2(seed, 0xc0) % FIRST.length];
  const second = SECOND[h2(seed, 0xc1) % SECOND.length];
  const trading = `${first} ${second}`;
  return { trading, legal: `${trading} Ltd`, slug: `${first}${second.split(' ')[0]}`.toLowerCase() };
}
