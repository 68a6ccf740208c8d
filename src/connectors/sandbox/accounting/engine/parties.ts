import { EUR, GBP, USD } from './chart.js';
import { INV30, type Rng, r3, r4 } from './hash.js';
import { type Lifecycle, countAt } from './lifecycle.js';
import {
  BUSINESS_WORDS,
  CITIES_EU,
  CITIES_GB,
  CITIES_US,
  FIRST_NAMES,
  LAST_NAMES,
  STREET_TYPES_GB,
  STREET_TYPES_US,
  STREETS,
  SUFFIX_EU,
  SUFFIX_GB,
  SUFFIX_US,
} from './words.js';

/**
 * Customers and suppliers ("parties") as pure functions of their index: currency, payment terms, whether
 * they trade, name, contact and address. Invoices and bills only ever pick trading parties; only prospects
 * (parties that never trade) can be deleted, so a document's party always exists.
 *
 * Functions here take the company's 30-bit seed key (`ctx.hs`) and the type's hash key (`lc.hk`).
 */

const NAME_SPACE = LAST_NAMES.length * BUSINESS_WORDS.length * 8;
const TERMS = [7, 14, 30, 30, 30, 30, 45, 60] as const;

/** One hash holds a party's fixed attributes. */
export function partyBits(hs: number, hk: number, index: number): number {
  return r3(hs, hk, index);
}

/** A prospect never trades and may be deleted (15 %); party 0 always trades. */
export function isProspect(bits: number, index: number): boolean {
  return index > 0 && (bits & 1023) < 154;
}

/** Customers: 65 % GBP, 20 % USD, 15 % EUR; suppliers: 80 % GBP, 10 % USD, 10 % EUR. */
export function currencyOf(bits: number, customer: boolean): number {
  const u = (bits >>> 10) & 1023;
  return customer ? (u < 666 ? GBP : u < 870 ? USD : EUR) : u < 819 ? GBP : u < 922 ? USD : EUR;
}

/** Payment terms in days. */
export function termsOf(bits: number): number {
  return TERMS[(bits >>> 20) & 7];
}

/** A trading party among those existing at `epoch`, skewed towards older (lower-index) parties. */
export function pickParty(hs: number, lc: Lifecycle, epoch: number, rng: Rng): number {
  const count = countAt(lc, epoch);
  for (let t = 0; t < 12; t++) {
    const u = rng.next() * INV30;
    const c = Math.floor(count * u * (0.35 + 0.65 * u));
    if (!isProspect(partyBits(hs, lc.hk, c), c)) return c;
  }
  return 0;
}

export function partyName(hs: number, hk: number, index: number, currency: number): string {
  const p = (index * 7919 + (r3(hs, hk, 0x3_0000) % NAME_SPACE)) % NAME_SPACE;
  const last = LAST_NAMES[p % LAST_NAMES.length];
  const word = BUSINESS_WORDS[Math.floor(p / LAST_NAMES.length) % BUSINESS_WORDS.length];
  const k = Math.floor(p / (LAST_NAMES.length * BUSINESS_WORDS.length)) % 8;
  const suffix = currency === GBP ? SUFFIX_GB[k] : currency === USD ? SUFFIX_US[k] : SUFFIX_EU[k];
  return `${last} ${word} ${suffix}`;
}

export interface Person {
  first: string;
  last: string;
  name: string;
}

export function person(seed: number, key: number, index: number, salt: number): Person {
  const first = FIRST_NAMES[r4(seed, key, index, 0x100 + salt) % FIRST_NAMES.length];
  const last = LAST_NAMES[r4(seed, key, index, 0x200 + salt) % LAST_NAMES.length];
  return { first, last, name: `${first} ${last}` };
}

export function domainOf(companyName: string, currency: number): string {
  const words = companyName
    .toLowerCase()
    .replace(/[^a-z ]/g, '')
    .split(' ')
    .filter(Boolean)
    .slice(0, 2)
    .join('');
  return `${words}${currency === GBP ? '.co.uk' : currency === USD ? '.com' : '.eu'}`;
}

export function email(p: Person, domain: string): string {
  return `${p.first.toLowerCase()}.${p.last.toLowerCase()}@${domain}`;
}

function digits(h: number, n: number): string {
  return String(h % 10 ** n).padStart(n, '0');
}

export function phone(seed: number, key: number, index: number, salt: number, currency: number): string {
  const h = r4(seed, key, index, 0x300 + salt);
  if (currency === GBP) return `+44 20 7946 ${digits(h, 4)}`;
  if (currency === USD) return `+1 ${CITIES_US[h % CITIES_US.length][2]}-555-01${digits(h >>> 8, 2)}`;
  const city = CITIES_EU[h % CITIES_EU.length];
  return `+${city[3]} ${digits(h >>> 4, 3)} ${digits(h >>> 12, 4)}`;
}

export interface PostalAddress {
  line1: string;
  line2?: string;
  city: string;
  region: string;
  country: string;
  postalCode: string;
}

export function address(seed: number, key: number, index: number, salt: number, currency: number): PostalAddress {
  const h = r4(seed, key, index, 0x400 + salt);
  const number = 1 + (h % 240);
  const street = STREETS[(h >>> 8) % STREETS.length];
  const unit = (h >>> 20) % 4 === 0 ? `Unit ${1 + ((h >>> 24) % 30)}` : undefined;
  if (currency === GBP) {
    const [city, region, area] = CITIES_GB[(h >>> 4) % CITIES_GB.length];
    const letters = String.fromCharCode(65 + ((h >>> 12) % 26), 65 + ((h >>> 17) % 26));
    return {
      line1: `${number} ${street} ${STREET_TYPES_GB[(h >>> 14) % STREET_TYPES_GB.length]}`,
      ...(unit ? { line2: unit } : {}),
      city,
      region,
      country: 'United Kingdom',
      postalCode: `${area} ${1 + ((h >>> 22) % 9)}${letters}`,
    };
  }
  if (currency === USD) {
    const [city, state, zip] = CITIES_US[(h >>> 4) % CITIES_US.length];
    return {
      line1: `${number * 10} ${street} ${STREET_TYPES_US[(h >>> 14) % STREET_TYPES_US.length]}`,
      ...(unit ? { line2: `Suite ${100 + ((h >>> 24) % 400)}` } : {}),
      city,
      region: state,
      country: 'United States',
      postalCode: `${zip}${digits(h >>> 9, 2)}`,
    };
  }
  const [city, region, country, , postDigits] = CITIES_EU[(h >>> 4) % CITIES_EU.length];
  const postalCode = postDigits === 0 ? `D0${1 + ((h >>> 9) % 8)}` : digits(h >>> 9, postDigits).replace(/^0/, '1');
  const line1 =
    country === 'Germany' || country === 'Austria'
      ? `${street}straße ${number}`
      : country === 'Netherlands'
        ? `${street}straat ${number}`
        : country === 'France'
          ? `${number} rue ${street}`
          : country === 'Spain'
            ? `Calle ${street} ${number}`
            : country === 'Italy'
              ? `Via ${street} ${number}`
              : `${number} ${street} Street`;
  return { line1, city, region, country, postalCode };
}

export function registrationNumber(seed: number, key: number, index: number): string {
  return digits(r4(seed, key, index, 0x500), 8);
}

export function taxNumber(seed: number, key: number, index: number, currency: number): string {
  const h = r4(seed, key, index, 0x501);
  if (currency === GBP) return `GB${digits(h, 9)}`;
  if (currency === USD) return `${digits(h, 2)}-${digits(h >>> 7, 7)}`;
  return `EU${digits(h, 9)}`;
}
