import { platformJson, platformRequest, transportOf, type PlatformEndpoint } from '../platform-http.js';
import { HLEDGER } from './platform.js';
import { ConnectorError } from '../connector-error.js';

/** hledger-web's JSON (`hledger-web --serve-api`), as far as Ledgerport reads it (hledger 1.25). */
export interface HledgerQuantity {
  decimalMantissa: number;
  decimalPlaces: number;
  floatingPoint: number;
}

export interface HledgerAmount {
  acommodity: string;
  aquantity: HledgerQuantity;
  /** `@ unit price` or `@@ total price`: what the amount cost, in another commodity. */
  aprice?: { tag: 'UnitPrice' | 'TotalPrice'; contents: { acommodity: string; aquantity: HledgerQuantity } } | null;
}

export interface HledgerPosting {
  paccount: string;
  pamount: HledgerAmount[];
  pcomment?: string;
  ptags?: [string, string][];
  ptype?: string;
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

export const PLATFORM = HLEDGER.name;

export function endpointOf(
  settings: HledgerSettings,
  credentials: HledgerCredentials | null,
  allowPrivate: boolean,
  signal?: AbortSignal,
): PlatformEndpoint {
  const basicAuth = credentials?.username ? { username: credentials.username, password: credentials.password ?? '' } : undefined;
  return { platform: PLATFORM, baseUrl: settings.url, basicAuth, allowPrivate, signal, ...transportOf(HLEDGER) };
}

export const version = (e: PlatformEndpoint) => platformJson<string>(e, '/version');
export const transactions = (e: PlatformEndpoint) => platformJson<HledgerTransaction[]>(e, '/transactions');
export const accounts = (e: PlatformEndpoint) => platformJson<HledgerAccount[]>(e, '/accounts');

/** The exact decimal of an amount (hledger keeps mantissa and places; the float may round). */
export function quantity(amount: { aquantity: HledgerQuantity }): number {
  return amount.aquantity.decimalMantissa / 10 ** amount.aquantity.decimalPlaces;
}

/**
 * The amount in `commodity`: itself, or its cost when it was priced in that commodity (`EUR 250 @ $1.10` is
 * $275 at cost, as `hledger -B` reports it); undefined for an amount in another commodity without such a price.
 */
export function quantityIn(amount: HledgerAmount, commodity: string): number | undefined {
  if (amount.acommodity === commodity) return quantity(amount);
  const price = amount.aprice;
  if (!price || price.contents.acommodity !== commodity) return undefined;
  const q = quantity(amount);
  return price.tag === 'UnitPrice' ? q * quantity(price.contents) : Math.sign(q) * Math.abs(quantity(price.contents));
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
