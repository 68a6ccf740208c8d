import { h3, h3s, seedState, u3 } from '../banking/kit/fast.js';
import { CUSTOMER_COUNTRIES, CUSTOMER_NOTES, EMAIL_DOMAINS, fillPattern, PEOPLE } from './people.js';
import { COUNTRIES, type Country } from './places.js';

/** Draw keys of a customer. */
const C = {
  country: 0xc01,
  first: 0xc02,
  last: 0xc03,
  email: 0xc04,
  phone: 0xc05,
  city: 0xc06,
  street: 0xc07,
  number: 0xc08,
  delivery: 0xc09,
  note: 0xc0a,
  postcode: 0xc0b,
};

/** Index (in CUSTOMER_COUNTRIES) of customer `c`'s country; `state` is `seedState(seed)`. */
export function customerCountryIndex(state: number, c: number): number {
  const u = h3s(state, c, C.country) / 0x1_0000_0000;
  let acc = 0;
  for (let i = 0; i < CUSTOMER_COUNTRIES.length; i++) if (u < (acc += CUSTOMER_COUNTRIES[i][1])) return i;
  return 0;
}

export function customerCountry(seed: number, c: number): Country {
  return CUSTOMER_COUNTRIES[customerCountryIndex(seedState(seed), c)][0];
}

/** Every "First Last" per country (CUSTOMER_COUNTRIES order), built once: orders name customers without concatenating. */
const FULL_NAMES: string[][] = CUSTOMER_COUNTRIES.map(([country]) =>
  PEOPLE[country].first.flatMap((first) => PEOPLE[country].last.map((last) => [first, last].join(' '))),
);

/** The customer's name (as orders name them); `state` is `seedState(seed)`, `country` their country index if known. */
export function customerName(state: number, c: number, country = customerCountryIndex(state, c)): string {
  const people = PEOPLE[CUSTOMER_COUNTRIES[country][0]];
  return FULL_NAMES[country][
    (h3s(state, c, C.first) % people.first.length) * people.last.length + (h3s(state, c, C.last) % people.last.length)
  ];
}

function ascii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

export interface CustomerAddress {
  type: 'Billing' | 'Delivery';
  line1: string;
  line2?: string;
  city: string;
  region: string;
  country: string;
  postalCode: string;
}

function address(seed: number, c: number, country: Country, type: CustomerAddress['type'], version: number): CustomerAddress {
  const people = PEOPLE[country];
  const key = c * 4 + (type === 'Delivery' ? 1 : 0) + version * 7919;
  const [city, region, pattern] = people.cities[h3(seed, key, C.city) % people.cities.length];
  const street = people.streets[h3(seed, key, C.street) % people.streets.length];
  const number = 1 + (h3(seed, key, C.number) % 180);
  const line1 = people.numberFirst ? `${number} ${street}` : `${street} ${number}`;
  const flat =
    h3(seed, key, C.delivery) % 5 === 0 ? (country === 'USA' ? `Apt ${1 + (number % 40)}` : `Flat ${1 + (number % 12)}`) : undefined;
  return {
    type,
    line1,
    ...(flat ? { line2: flat } : {}),
    city,
    region,
    country: COUNTRIES[country].name,
    postalCode: fillPattern(pattern, h3(seed, key, C.postcode)),
  };
}

/** The fields of customer `c` as of its latest change (`version`: the epoch of that change, 0 if none). */
export function customerFields(seed: number, c: number, version: number) {
  const country = customerCountry(seed, c);
  const people = PEOPLE[country];
  const first = people.first[h3(seed, c, C.first) % people.first.length];
  const last = people.last[h3(seed, c, C.last) % people.last.length];
  // A change moves the customer (new billing address) and sometimes changes their email.
  const emailVersion = version && h3(seed, c, version) % 2 === 0 ? version : 0;
  const suffix = h3(seed, c * 31 + emailVersion, C.email) % 100;
  const email = `${ascii(first)}.${ascii(last)}${suffix}@${EMAIL_DOMAINS[h3(seed, c, C.email) % EMAIL_DOMAINS.length]}`;
  const addresses = [address(seed, c, country, 'Billing', version)];
  if (u3(seed, c, C.delivery) < 0.35) addresses.push(address(seed, c, country, 'Delivery', 0));
  const noteDraw = u3(seed, c, C.note);
  return {
    customerName: `${first} ${last}`,
    emailAddress: email,
    phone: u3(seed, c, C.phone) < 0.85 ? fillPattern(people.phone, h3(seed, c, C.phone)) : null,
    defaultCurrency: COUNTRIES[country].currency,
    addresses,
    note: noteDraw < 0.08 ? CUSTOMER_NOTES[Math.floor(noteDraw * 1000) % CUSTOMER_NOTES.length] : undefined,
  };
}
