import { platformJson, platformRequest, type PlatformEndpoint } from '../platform-http.js';
import { declaredEndpoint, declaredPages, pageTarget, settingBaseUrl, type PageRequest } from '../platform-runtime.js';
import { HLEDGER } from './platform.js';
import { ConnectorError } from '../connector-error.js';
import { multiplyScaled, type ScaledDecimal } from '../../lib/decimal.js';

/** hledger-web's JSON (`hledger-web --serve-api`), as far as Ledgerport reads it (hledger 1.25). */
export interface HledgerQuantity {
  decimalMantissa: number;
  decimalPlaces: number;
  floatingPoint: number;
}

/** How a commodity is written in the journal (hledger applies one style per commodity to every amount). */
export interface HledgerAmountStyle {
  /** `L`: the symbol before the number (`£10`), `R`: after it (`10 EUR`). */
  ascommodityside: 'L' | 'R';
  ascommodityspaced: boolean;
  asdecimalpoint: string | null;
  /** The digit group mark and the group sizes (`[",", [3]]`), or none. */
  asdigitgroups: [string, number[]] | null;
  /** Decimal places shown: a number, or (in some versions) a tagged `Precision`/`NaturalPrecision`. */
  asprecision: number | { tag: string; contents?: number } | null;
}

export interface HledgerAmount {
  acommodity: string;
  aquantity: HledgerQuantity;
  astyle?: HledgerAmountStyle;
  /** `@ unit price` or `@@ total price`: what the amount cost, in another commodity. */
  aprice?: { tag: 'UnitPrice' | 'TotalPrice'; contents: { acommodity: string; aquantity: HledgerQuantity } } | null;
}

export interface HledgerPosting {
  paccount: string;
  pamount: HledgerAmount[];
  pcomment?: string;
  ptags?: [string, string][];
  ptype?: string;
  /** A posting date of its own (`; date: 2025-02-03`): hledger's reports put the posting on it. */
  pdate?: string | null;
  /** `= AMOUNT` after the posting's amount: the account's balance there, checked by hledger on every load. */
  pbalanceassertion?: { baamount: HledgerAmount; batotal?: boolean; bainclusive?: boolean } | null;
}

export interface HledgerTransaction {
  tindex: number;
  tdate: string;
  tdate2?: string | null;
  tcode: string;
  tdescription: string;
  tcomment?: string;
  tstatus?: string;
  tpostings: HledgerPosting[];
  tsourcepos?: { sourceName: string; sourceLine: number }[];
}

export interface HledgerAccount {
  aname: string;
  aparent_: string;
  aebalance: HledgerAmount[];
}

/** The connection's settings for hledger: where hledger-web answers. */
export interface HledgerSettings {
  url: string;
}

/** Optional credentials, for a proxy (HTTP Basic) in front of hledger-web. */
export interface HledgerCredentials {
  username?: string;
  password?: string;
}

export function endpointOf(
  settings: HledgerSettings,
  credentials: HledgerCredentials | null,
  allowPrivate: boolean,
  signal?: AbortSignal,
): PlatformEndpoint {
  const basicAuth = credentials?.username ? { username: credentials.username, password: credentials.password ?? '' } : undefined;
  // The address is the end user's (the connection's setting): checked unless the operator allows private ones.
  return declaredEndpoint(HLEDGER, {
    baseUrl: settingBaseUrl(HLEDGER, settings),
    basicAuth,
    allowPrivate,
    signal,
  });
}

export const version = (e: PlatformEndpoint) => platformJson<string>(e, '/version');

/** A list hledger-web answers, paged as the declaration says (whole, one answer: hledger-web does not page). */
async function list<T>(e: PlatformEndpoint, path: string): Promise<T[]> {
  const out: T[] = [];
  const get = async (request: PageRequest) => ({ body: await platformJson<unknown>(e, pageTarget(request)) });
  for await (const page of declaredPages<Record<string, unknown>, { body: unknown }>(HLEDGER, get, path))
    out.push(...(page.records as T[]));
  return out;
}

export const transactions = (e: PlatformEndpoint) => list<HledgerTransaction>(e, '/transactions');
export const accounts = (e: PlatformEndpoint) => list<HledgerAccount>(e, '/accounts');
/** Every account name the journal declares (`account` directives) or posts to, with their parents. */
export const accountNames = (e: PlatformEndpoint) => list<string>(e, '/accountnames');

/** The decimal of an amount as a JSON number (hledger keeps mantissa and places; the float may round). */
export function quantity(amount: { aquantity: HledgerQuantity }): number {
  return amount.aquantity.decimalMantissa / 10 ** amount.aquantity.decimalPlaces;
}

/** The exact decimal of an amount. */
export function exactQuantity(amount: { aquantity: HledgerQuantity }): ScaledDecimal {
  // The mantissa is a JSON number: exact as long as it is an integer within 2^53, as every real amount is.
  return { units: BigInt(Math.trunc(amount.aquantity.decimalMantissa)), places: amount.aquantity.decimalPlaces };
}

/**
 * An amount at cost, as `hledger -B` converts it: an amount with a price (`-20 EUR @ 7.53 HRK`, `@@ 150.60 HRK`)
 * is its cost in the price's commodity (-150.60 HRK), whatever its own commodity; any other amount is itself.
 * Exact: a unit price times the quantity keeps every decimal place of both.
 */
export function atCost(amount: HledgerAmount): { commodity: string; amount: ScaledDecimal } {
  const price = amount.aprice;
  const q = exactQuantity(amount);
  if (!price) return { commodity: amount.acommodity, amount: q };
  const p = exactQuantity(price.contents);
  if (price.tag === 'UnitPrice') return { commodity: price.contents.acommodity, amount: multiplyScaled(q, p) };
  // A total price is the cost of the whole amount, times the amount's sign (hledger: `pq * signum q`).
  const sign = q.units < 0n ? -1n : q.units > 0n ? 1n : 0n;
  return { commodity: price.contents.acommodity, amount: { units: p.units * sign, places: p.places } };
}

/** The amount at cost in `commodity`, or undefined when its cost is in another commodity. */
export function costIn(amount: HledgerAmount, commodity: string): ScaledDecimal | undefined {
  const cost = atCost(amount);
  return cost.commodity === commodity ? cost.amount : undefined;
}

/**
 * Appends a transaction (`PUT /add`). hledger-web answers 201 and writes it into the journal file even when
 * its postings do not balance, after which the file no longer loads: callers check balance first.
 */
export async function add(e: PlatformEndpoint, transaction: HledgerTransaction): Promise<void> {
  const response = await platformRequest(e, 'PUT', '/add', transaction);
  if (response.status !== 201 && response.status !== 200) {
    throw new ConnectorError('invalid', `hledger refused the transaction (HTTP ${response.status}): ${response.body.slice(0, 300)}`);
  }
}
