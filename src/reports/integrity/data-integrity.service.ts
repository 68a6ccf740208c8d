import type { Client } from '../../clients/clients.store.js';
import type { DataType } from '../../codat-model/data-types.js';
import { ApiError } from '../../http/api-error.js';
import type { PageRequest } from '../../http/paging.js';
import { boundedCache } from '../../lib/bounded-cache.js';
import { dayOfNumber } from '../../lib/calendar-date.js';
import { clockFor } from '../../lib/clock.js';
import { rowFilter, rowOrder, type RowResource } from '../../query/row-query.js';
import type { RecordReader } from '../../records/record-reader.js';
import {
  COUNTERPART,
  INTEGRITY_TYPES,
  connectionsOf,
  integrityFacts,
  integrityFactsBytes,
  type AccountEntry,
  type IntegrityFacts,
  type IntegrityType,
  type IntegrityVersions,
  type Side,
  type TransactionEntry,
} from './integrity-facts.js';

/*
 * Data integrity (docs/lending/data-integrity.md): how much of a company's books' bank movements its banks' own
 * statements show, and the reverse; the same for bank accounts. The matches are the engine's (../matching/), made
 * once per set of input versions and kept: after every sync of an input (`afterSync`, which the sync job calls), or at
 * the first request for a set not matched yet.
 */

/** What the service reads of the data sets: each data type's complete versions by connection, or undefined. */
export interface SyncedByConnection {
  syncedByConnection(
    client: Client,
    companyId: string,
    dataTypes: readonly DataType[],
  ): Promise<({ connectionId: string; version: number }[] | undefined)[]>;
}

export interface DataIntegrityDeps {
  dataSets: SyncedByConnection;
  records: Pick<RecordReader, 'eachKept'>;
  cacheBytes?: number;
}

const isTransactions = (type: IntegrityType) => type === 'accountTransactions' || type === 'banking-transactions';
const isAccounting = (type: IntegrityType) => type === 'accountTransactions' || type === 'bankAccounts';

/** The path's data type, or 404 for one data integrity does not match (as for any other unknown path value). */
function integrityType(value: string): IntegrityType {
  if ((INTEGRITY_TYPES as readonly string[]).includes(value)) return value as IntegrityType;
  throw new ApiError(404, `NotFound: Data integrity matches ${INTEGRITY_TYPES.join(', ')}; not ${value}.`);
}

/** A detail as served: a transaction's, or an account's (with the name and institution Codat's docs show). */
export interface TransactionDetail {
  id: string;
  type: IntegrityType;
  connectionId: string;
  date?: string;
  description: string;
  amount?: number;
  currency: string;
  matches: {
    id: string;
    type: IntegrityType;
    connectionId: string;
    date?: string;
    description: string;
    amount?: string;
    currency: string;
    matchPass: number;
  }[];
}
export interface AccountDetail {
  id: string;
  type: IntegrityType;
  connectionId: string;
  accountName?: string;
  institution?: string;
  matches: { id: string; type: IntegrityType; connectionId: string; accountName?: string; institution?: string }[];
}

export interface IntegrityStatus {
  type: IntegrityType;
  statusInfo: { lastMatched?: string; currentStatus: 'Unknown' | 'DoesNotExist' | 'Error' | 'Complete'; statusMessage: string };
  connectionIds: { source: string[]; target: string[] };
  amounts?: { min?: number; max?: number; currency?: string };
  dates?: { minDate?: string; maxDate?: string; minOverlappingDate?: string; maxOverlappingDate?: string };
}

/** The properties `query` and `orderBy` may name on a type's details. */
const TRANSACTION_FIELDS: RowResource<TransactionEntry>['fields'] = {
  id: { type: 'string', get: (e) => e.id },
  connectionId: { type: 'string', get: (e) => e.connectionId },
  date: { type: 'date', dateStyle: 'local', get: (e) => e.date },
  description: { type: 'string', get: (e) => e.description },
  amount: { type: 'number', get: (e) => e.amount },
  currency: { type: 'string', get: (e) => e.currency },
};
const ACCOUNT_FIELDS: RowResource<AccountEntry>['fields'] = {
  id: { type: 'string', get: (e) => e.id },
  connectionId: { type: 'string', get: (e) => e.connectionId },
  accountName: { type: 'string', get: (e) => e.accountName },
  institution: { type: 'string', get: (e) => e.institution },
};

/** An amount of ten-thousandths as the number it is. */
const fromUnits = (units: bigint) => Number(units) / 10_000;
const midnight = (day: number) => `${dayOfNumber(day)}T00:00:00Z`;

/**
 * The latest matches of the companies asked about most recently are kept beyond the cache's budget (a large company's
 * outgrow it), up to this many bytes together; the most recent company's always.
 */
const LATEST_BYTES = 1024 * 1024 * 1024;

export function createDataIntegrityService(deps: DataIntegrityDeps) {
  const kept = boundedCache<IntegrityFacts>({ bytes: deps.cacheBytes ?? 512 * 1024 * 1024, valueBytes: integrityFactsBytes });
  // The latest matches of the companies asked about most recently, by company: paging through a large company's
  // details reads its records once, however large.
  const latest = new Map<string, { key: string; facts: IntegrityFacts }>();
  const making = new Map<string, Promise<IntegrityFacts>>();
  /**
   * Companies being matched after a sync: whether another sync asked for one more meanwhile, and the latest caller,
   * whose client (its companies' version moved with that sync) sees the versions then current.
   */
  const rematching = new Map<string, { again: boolean; client: Client; done: Promise<void> }>();

  async function versionsOf(client: Client, companyId: string): Promise<IntegrityVersions> {
    const found = await deps.dataSets.syncedByConnection(client, companyId, INTEGRITY_TYPES);
    return Object.fromEntries(INTEGRITY_TYPES.map((type, i) => [type, found[i] ?? []])) as IntegrityVersions;
  }

  const keyOf = (client: Client, companyId: string, versions: IntegrityVersions) =>
    `${client.id} ${companyId} ${INTEGRITY_TYPES.map((t) => versions[t].map((v) => `${v.connectionId}:${v.version}`).join(',')).join(' ')}`;

  function remember(companyId: string, key: string, facts: IntegrityFacts) {
    kept.set(key, facts);
    latest.delete(companyId);
    latest.set(companyId, { key, facts });
    let bytes = 0;
    for (const entry of latest.values()) bytes += integrityFactsBytes(entry.facts);
    // The least recent first, while over the budget; never the one just kept.
    for (const [company, entry] of latest) {
      if (bytes <= LATEST_BYTES || company === companyId) break;
      bytes -= integrityFactsBytes(entry.facts);
      latest.delete(company);
    }
  }

  async function factsOf(client: Client, companyId: string, versions: IntegrityVersions): Promise<IntegrityFacts> {
    const key = keyOf(client, companyId, versions);
    const last = latest.get(companyId);
    if (last?.key === key) {
      // The most recently asked about again.
      latest.delete(companyId);
      latest.set(companyId, last);
      return last.facts;
    }
    const cached = kept.get(key);
    if (cached) {
      remember(companyId, key, cached);
      return cached;
    }
    let pending = making.get(key);
    if (!pending) {
      pending = integrityFacts(deps.records, versions, () => clockFor({ clientId: client.id, companyId }).now().toISOString())
        .then((facts) => {
          remember(companyId, key, facts);
          return facts;
        })
        .finally(() => making.delete(key));
      making.set(key, pending);
    }
    return pending;
  }

  /**
   * The URL type's and its counterpart's connections, from the versions alone, and the facts when both sides have
   * something synced (read and matched then, or kept from before).
   */
  async function stateOf(client: Client, companyId: string, dataType: string, query?: string, known?: IntegrityVersions) {
    // The company first (404, or 403 for another client's), then the data type (404), then the query (400).
    const versions = known ?? (await versionsOf(client, companyId));
    const type = integrityType(dataType);
    const test = filterOf(type, query);
    const counterpart = COUNTERPART[type];
    const source = connectionsOf(versions[type]);
    const target = connectionsOf(versions[counterpart]);
    const ready = source.length > 0 && target.length > 0;
    const facts = ready ? await factsOf(client, companyId, versions) : undefined;
    return { type, test, source, target, facts, counterpart };
  }

  /** The side of the URL's type and the other. */
  function sides(facts: IntegrityFacts, type: IntegrityType) {
    return isAccounting(type) ? { own: facts.accounting, other: facts.banking } : { own: facts.banking, other: facts.accounting };
  }

  function transactionDetail(type: IntegrityType, entry: TransactionEntry, other: Side): TransactionDetail {
    return {
      id: entry.id,
      type,
      connectionId: entry.connectionId,
      ...(entry.date !== undefined && { date: entry.date }),
      description: entry.description,
      ...(entry.amount !== undefined && { amount: entry.amount }),
      currency: entry.currency,
      matches: entry.matches.map(({ entry: k, pass }) => {
        const match = other.transactions[k];
        return {
          id: match.id,
          type: COUNTERPART[type],
          connectionId: match.connectionId,
          ...(match.date !== undefined && { date: match.date }),
          description: match.description,
          ...(match.amount !== undefined && { amount: String(match.amount) }),
          currency: match.currency,
          matchPass: pass,
        };
      }),
    };
  }

  function accountDetail(type: IntegrityType, entry: AccountEntry, other: Side): AccountDetail {
    const named = (e: AccountEntry) => ({
      ...(e.accountName !== undefined && { accountName: e.accountName }),
      ...(e.institution !== undefined && { institution: e.institution }),
    });
    return {
      id: entry.id,
      type,
      connectionId: entry.connectionId,
      ...named(entry),
      matches: entry.matches.map(({ entry: k }) => {
        const match = other.accounts[k];
        return { id: match.id, type: COUNTERPART[type], connectionId: match.connectionId, ...named(match) };
      }),
    };
  }

  /** The test of `query` on the URL type's entries (none without one); 400 for a bad query, before anything is read. */
  function filterOf(type: IntegrityType, query: string | undefined) {
    if (!query) return undefined;
    return isTransactions(type)
      ? rowFilter(query, { typeName: 'DataIntegrityDetail', fields: TRANSACTION_FIELDS })
      : rowFilter(query, { typeName: 'DataIntegrityDetail', fields: ACCOUNT_FIELDS });
  }

  return {
    /** The status of matching the URL's type against its counterpart; DoesNotExist while either side is missing. */
    async status(client: Client, companyId: string, dataType: string): Promise<{ metadata: IntegrityStatus[] }> {
      const { type, source, target, facts, counterpart } = await stateOf(client, companyId, dataType);
      if (!facts) {
        const missing = [source.length === 0 ? type : undefined, target.length === 0 ? counterpart : undefined].filter(Boolean);
        return {
          metadata: [
            {
              type: counterpart,
              statusInfo: {
                currentStatus: 'DoesNotExist',
                statusMessage: `Matching has not run: no connection of the company has ${missing.join(' or ')} synced.`,
              },
              connectionIds: { source, target },
            },
          ],
        };
      }
      const { own, other } = sides(facts, type);
      const status: IntegrityStatus = {
        type: counterpart,
        statusInfo: {
          lastMatched: facts.matchedAt,
          currentStatus: 'Complete',
          statusMessage: `Matched ${type} against ${counterpart}.`,
        },
        connectionIds: { source, target },
      };
      if (isTransactions(type)) {
        let min = Infinity;
        let max = -Infinity;
        for (const e of own.transactions) {
          if (e.amount === undefined) continue;
          if (e.amount < min) min = e.amount;
          if (e.amount > max) max = e.amount;
        }
        const currency = soleCurrency(own.transactions);
        status.amounts = {
          ...(Number.isFinite(min) && { min, max }),
          ...(currency !== undefined && { currency }),
        };
        // Transactions are in date order, those without a date first.
        const span = (side: Side) => {
          const dated = side.transactions.filter((e) => Number.isFinite(e.day));
          return dated.length === 0 ? { min: NaN, max: NaN } : { min: dated[0].day, max: dated[dated.length - 1].day };
        };
        const mine = span(own);
        const theirs = span(other);
        const overlapFrom = Math.max(mine.min, theirs.min);
        const overlapTo = Math.min(mine.max, theirs.max);
        status.dates = {
          ...(Number.isFinite(mine.min) && { minDate: midnight(mine.min), maxDate: midnight(mine.max) }),
          ...(overlapFrom <= overlapTo && { minOverlappingDate: midnight(overlapFrom), maxOverlappingDate: midnight(overlapTo) }),
        };
      }
      return { metadata: [status] };
    },

    /** Matched, unmatched and total of the records `query` selects, by count and (transactions) by absolute amount. */
    async summaries(client: Client, companyId: string, dataType: string, query: string | undefined) {
      const { type, test, facts, counterpart } = await stateOf(client, companyId, dataType, query);
      if (!facts) return { summaries: [] };
      const { own } = sides(facts, type);
      const entries: { matches: unknown[] }[] = isTransactions(type) ? own.transactions : own.accounts;
      const chosen = test ? entries.filter(test as (e: unknown) => boolean) : entries;
      const matchedCount = chosen.filter((e) => e.matches.length > 0).length;
      const percentage = (part: number, whole: number) => (whole === 0 ? 0 : (part / whole) * 100);
      const byCount = {
        matchPercentage: percentage(matchedCount, chosen.length),
        matched: matchedCount,
        unmatched: chosen.length - matchedCount,
        total: chosen.length,
      };
      if (!isTransactions(type)) return { summaries: [{ type: counterpart, byCount }] };
      const transactions = chosen as TransactionEntry[];
      let matched = 0n;
      let unmatched = 0n;
      for (const e of transactions) {
        if (e.units === null) continue;
        const size = BigInt(Math.abs(e.units));
        if (e.matches.length > 0) matched += size;
        else unmatched += size;
      }
      const currency = soleCurrency(transactions);
      const byAmount = {
        matchPercentage: percentage(fromUnits(matched), fromUnits(matched + unmatched)),
        matched: fromUnits(matched),
        unmatched: fromUnits(unmatched),
        total: fromUnits(matched + unmatched),
        ...(currency !== undefined && { currency }),
      };
      return { summaries: [{ type: counterpart, byAmount, byCount }] };
    },

    /** A page of the URL type's records with what each matched (empty while either side is missing). */
    async details(client: Client, companyId: string, dataType: string, page: PageRequest) {
      const versions = await versionsOf(client, companyId);
      const type = integrityType(dataType);
      const order = page.orderBy
        ? isTransactions(type)
          ? rowOrder(page.orderBy, { typeName: 'DataIntegrityDetail', fields: TRANSACTION_FIELDS })
          : rowOrder(page.orderBy, { typeName: 'DataIntegrityDetail', fields: ACCOUNT_FIELDS })
        : undefined;
      const { test, facts } = await stateOf(client, companyId, dataType, page.query, versions);
      if (!facts) return { totalResults: 0, results: [] };
      const { own, other } = sides(facts, type);
      const from = (page.page - 1) * page.pageSize;
      // Kept in date then id order (accounts by id): sorted again only for another order.
      const pick = <E>(entries: E[]) => {
        const chosen = test ? entries.filter(test as (e: E) => boolean) : entries;
        return order ? [...chosen].sort(order as (x: E, y: E) => number) : chosen;
      };
      if (isTransactions(type)) {
        const list = pick(own.transactions);
        return { totalResults: list.length, results: list.slice(from, from + page.pageSize).map((e) => transactionDetail(type, e, other)) };
      }
      const list = pick(own.accounts);
      return { totalResults: list.length, results: list.slice(from, from + page.pageSize).map((e) => accountDetail(type, e, other)) };
    },

    /**
     * The matches of the company's current inputs, or undefined while either side has no transactions synced
     * (enhanced invoices follow payments through them to the bank).
     */
    async transactionMatches(client: Client, companyId: string): Promise<IntegrityFacts | undefined> {
      return (await stateOf(client, companyId, 'accountTransactions')).facts;
    },

    /**
     * Matches a company's inputs as they now are, once a sync of one of them has completed (the sync job's
     * `afterComplete`), so the next request finds them made. Nothing runs until both sides have something synced.
     */
    async afterSync(client: Client, companyId: string, dataType: string): Promise<void> {
      if (!(INTEGRITY_TYPES as readonly string[]).includes(dataType)) return;
      // One matching per company at a time: syncs landing meanwhile ask for one more, of the versions then current.
      const running = rematching.get(companyId);
      if (running) {
        running.again = true;
        running.client = client;
        return running.done;
      }
      const state = { again: false, client, done: Promise.resolve() };
      state.done = (async () => {
        try {
          do {
            state.again = false;
            const versions = await versionsOf(state.client, companyId);
            const has = (types: IntegrityType[]) => types.some((t) => versions[t].length > 0);
            if (has(['accountTransactions', 'bankAccounts']) && has(['banking-transactions', 'banking-accounts']))
              await factsOf(state.client, companyId, versions);
          } while (state.again);
        } finally {
          rematching.delete(companyId);
        }
      })();
      rematching.set(companyId, state);
      return state.done;
    },
  };
}

/** The one currency of the transactions, or undefined when they have several (or none names one). */
function soleCurrency(transactions: readonly TransactionEntry[]): string | undefined {
  const currencies = new Set(transactions.map((e) => e.currency));
  const [only] = currencies;
  return currencies.size === 1 && only !== '' ? only : undefined;
}

export type DataIntegrityService = ReturnType<typeof createDataIntegrityService>;
