/** Where the shop sells: its locations, their tax regimes and the tax components those use. */

export type Currency = 'GBP' | 'USD' | 'EUR';
export type Country = 'GBR' | 'USA' | 'DEU' | 'IRL' | 'FRA' | 'NLD';
/** A tax regime: the components charged at the standard and reduced rate (zero-rated lines pay none). */
export type Regime = 'GB' | 'US-NY' | 'US-CA' | 'DE' | 'IE' | 'FR' | 'NL' | 'NONE';
export type TaxClass = 'standard' | 'reduced' | 'zero' | 'none';

export const CURRENCIES: readonly Currency[] = ['GBP', 'USD', 'EUR'];

export const COUNTRIES: Record<Country, { name: string; currency: Currency; regime: Regime }> = {
  GBR: { name: 'United Kingdom', currency: 'GBP', regime: 'GB' },
  USA: { name: 'United States', currency: 'USD', regime: 'NONE' },
  DEU: { name: 'Germany', currency: 'EUR', regime: 'DE' },
  IRL: { name: 'Ireland', currency: 'EUR', regime: 'IE' },
  FRA: { name: 'France', currency: 'EUR', regime: 'FR' },
  NLD: { name: 'Netherlands', currency: 'EUR', regime: 'NL' },
};

export interface TaxComponentDef {
  name: string;
  /** Fraction of the net price, as the OAS describes `rate` (0.2 for 20%). */
  rate: number;
  isCompound: boolean;
}

/** The base tax components, in id order. Later epochs add local levies (see `customTaxComponent`). */
export const TAX_COMPONENTS: readonly TaxComponentDef[] = [
  { name: 'UK VAT (20%)', rate: 0.2, isCompound: false },
  { name: 'UK VAT reduced (5%)', rate: 0.05, isCompound: false },
  { name: 'New York State Sales Tax (4%)', rate: 0.04, isCompound: false },
  { name: 'New York City Sales Tax (4.5%)', rate: 0.045, isCompound: false },
  { name: 'MCTD Surcharge (0.375%)', rate: 0.00375, isCompound: false },
  { name: 'California State Sales Tax (7.25%)', rate: 0.0725, isCompound: false },
  { name: 'Los Angeles County District Tax (2.25%)', rate: 0.0225, isCompound: false },
  { name: 'Germany VAT (19%)', rate: 0.19, isCompound: false },
  { name: 'Germany VAT reduced (7%)', rate: 0.07, isCompound: false },
  { name: 'Ireland VAT (23%)', rate: 0.23, isCompound: false },
  { name: 'Ireland VAT reduced (13.5%)', rate: 0.135, isCompound: false },
  { name: 'France TVA (20%)', rate: 0.2, isCompound: false },
  { name: 'France TVA reduced (5.5%)', rate: 0.055, isCompound: false },
  { name: 'Netherlands BTW (21%)', rate: 0.21, isCompound: false },
  { name: 'Netherlands BTW reduced (9%)', rate: 0.09, isCompound: false },
];

const LEVIES = ['Tourism Levy', 'Packaging Levy', 'Environmental Fee', 'Luxury Surcharge', 'Event Levy'];

/** Tax component `i` beyond the base list: a local levy a later epoch adds (not yet charged on orders). */
export function customTaxComponent(i: number): TaxComponentDef {
  const n = i - TAX_COMPONENTS.length;
  const rate = [0.01, 0.005, 0.02, 0.015, 0.0025][n % 5];
  return {
    name: `${LEVIES[n % LEVIES.length]} ${Math.floor(n / LEVIES.length) + 1} (${+(rate * 100).toFixed(3)}%)`,
    rate,
    isCompound: n % 3 === 2,
  };
}

/** Component indices charged per regime and tax class. */
export const REGIMES: Record<Regime, { standard: number[]; reduced: number[] }> = {
  GB: { standard: [0], reduced: [1] },
  'US-NY': { standard: [2, 3, 4], reduced: [2, 3, 4] },
  'US-CA': { standard: [5, 6], reduced: [5, 6] },
  DE: { standard: [7], reduced: [8] },
  IE: { standard: [9], reduced: [10] },
  FR: { standard: [11], reduced: [12] },
  NL: { standard: [13], reduced: [14] },
  NONE: { standard: [], reduced: [] },
};

export const REGIME_LIST: readonly Regime[] = ['GB', 'US-NY', 'US-CA', 'DE', 'IE', 'FR', 'NL', 'NONE'];
export const TAX_CLASSES: readonly TaxClass[] = ['standard', 'reduced', 'zero', 'none'];

/** Components charged on a line: gift cards are untaxed; children's clothing is zero-rated in the UK only. */
export function componentsFor(regime: Regime, taxClass: TaxClass): number[] {
  if (taxClass === 'none') return [];
  if (taxClass === 'zero') return regime === 'GB' ? [] : REGIMES[regime].standard;
  return REGIMES[regime][taxClass];
}

export type LocationKind = 'online' | 'store' | 'warehouse' | 'popup';

export interface LocationDef {
  name: string;
  kind: LocationKind;
  country: Country;
  regime: Regime;
  /** Share of orders (0 for warehouses). */
  weight: number;
  address: { line1: string; line2?: string; city: string; region: string; postalCode: string };
}

/** Base locations in opening order: every company has the first four (GBP, USD and EUR sales). */
export const LOCATIONS: readonly LocationDef[] = [
  {
    name: 'Online Store',
    kind: 'online',
    country: 'GBR',
    regime: 'GB',
    weight: 45,
    address: { line1: 'Unit 4, Riverside Business Park', line2: 'Lyon Road', city: 'London', region: 'England', postalCode: 'SW19 2RL' },
  },
  {
    name: 'London Flagship',
    kind: 'store',
    country: 'GBR',
    regime: 'GB',
    weight: 18,
    address: { line1: '112 Redchurch Street', city: 'London', region: 'England', postalCode: 'E2 7DJ' },
  },
  {
    name: 'New York SoHo',
    kind: 'store',
    country: 'USA',
    regime: 'US-NY',
    weight: 12,
    address: { line1: '85 Mercer Street', city: 'New York', region: 'NY', postalCode: '10012' },
  },
  {
    name: 'Berlin Mitte',
    kind: 'store',
    country: 'DEU',
    regime: 'DE',
    weight: 9,
    address: { line1: 'Alte Schönhauser Straße 6', city: 'Berlin', region: 'Berlin', postalCode: '10119' },
  },
  {
    name: 'Manchester Northern Quarter',
    kind: 'store',
    country: 'GBR',
    regime: 'GB',
    weight: 7,
    address: { line1: '44 Oldham Street', city: 'Manchester', region: 'England', postalCode: 'M4 1LE' },
  },
  {
    name: 'UK Fulfilment Centre',
    kind: 'warehouse',
    country: 'GBR',
    regime: 'GB',
    weight: 0,
    address: { line1: 'Plot 9, Magna Park', line2: 'Mill Road', city: 'Lutterworth', region: 'England', postalCode: 'LE17 4XH' },
  },
  {
    name: 'Dublin Grafton Street',
    kind: 'store',
    country: 'IRL',
    regime: 'IE',
    weight: 5,
    address: { line1: '27 Grafton Street', city: 'Dublin', region: 'Dublin', postalCode: 'D02 X285' },
  },
  {
    name: 'Los Angeles Arts District',
    kind: 'store',
    country: 'USA',
    regime: 'US-CA',
    weight: 6,
    address: { line1: '900 East 4th Place', city: 'Los Angeles', region: 'CA', postalCode: '90013' },
  },
  {
    name: 'Paris Le Marais',
    kind: 'store',
    country: 'FRA',
    regime: 'FR',
    weight: 5,
    address: { line1: '38 Rue de Turenne', city: 'Paris', region: 'Île-de-France', postalCode: '75003' },
  },
  {
    name: 'Amsterdam Jordaan',
    kind: 'store',
    country: 'NLD',
    regime: 'NL',
    weight: 4,
    address: { line1: 'Westerstraat 101', city: 'Amsterdam', region: 'Noord-Holland', postalCode: '1015 LZ' },
  },
];

const POPUPS: ReadonlyArray<[string, Country, Regime, LocationDef['address']]> = [
  ['Pop-up Covent Garden', 'GBR', 'GB', { line1: '14 James Street', city: 'London', region: 'England', postalCode: 'WC2E 8BU' }],
  ['Pop-up Brooklyn', 'USA', 'US-NY', { line1: '61 Wythe Avenue', city: 'Brooklyn', region: 'NY', postalCode: '11249' }],
  ['Pop-up Hamburg', 'DEU', 'DE', { line1: 'Neuer Wall 18', city: 'Hamburg', region: 'Hamburg', postalCode: '20354' }],
  ['Pop-up Edinburgh', 'GBR', 'GB', { line1: '21 Victoria Street', city: 'Edinburgh', region: 'Scotland', postalCode: 'EH1 2HE' }],
];

/** Location `i`: the base list, then a pop-up shop per later epoch. */
export function locationDef(i: number): LocationDef {
  if (i < LOCATIONS.length) return LOCATIONS[i];
  const n = i - LOCATIONS.length;
  const [name, country, regime, address] = POPUPS[n % POPUPS.length];
  const round = Math.floor(n / POPUPS.length);
  return { name: round ? `${name} ${round + 1}` : name, kind: 'popup', country, regime, weight: 2, address };
}

/** Base locations by size: 4 at 200 invoices, 6 at 10,000, 8 at 1,000,000. */
export function baseLocations(invoices: number): number {
  return Math.min(LOCATIONS.length, Math.max(4, 2 + Math.floor(Math.log10(Math.max(1, invoices)))));
}
