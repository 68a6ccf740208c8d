import type { Client } from '../../clients/clients.store.js';
import type { DataType } from '../../codat-model/data-types.js';
import type { PageRequest } from '../../http/paging.js';
import { boundedCache } from '../../lib/bounded-cache.js';
import { dayOfNumber } from '../../lib/calendar-date.js';
import { clockFor } from '../../lib/clock.js';
import { rowFilter, rowOrder, type RowResource } from '../../query/row-query.js';
import type { RecordReader } from '../../records/record-reader.js';
import {
  COUNTERPART,
  INTEGRITY_TYPES,
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
 * once per set of input versions and kept; a sync of any input makes a new set, matched at the next read or when
 * the sync job asks (`refresh`).
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

export function createDataIntegrityService(deps: DataIntegrityDeps) {
  const kept = boundedCache<IntegrityFacts>({ bytes: deps.cacheBytes ?? 256 * 1024 * 1024, valueBytes: integrityFactsBytes });
  const making = new Map<string, Promise<IntegrityFacts>>();

  async function versionsOf(client: Client, companyId: string): Promise<IntegrityVersions> {
    const found = await deps.dataSets.syncedByConnection(client, companyId, INTEGRITY_TYPES);
    return Object.fromEntries(INTEGRITY_TYPES.map((type, i) => [type, found[i] ?? []])) as IntegrityVersions;
  }

  const keyOf = (companyId: string, versions: IntegrityVersions) =>
    `${companyId} ${INTEGRITY_TYPES.map((t) => versions[t].map((v) => `${v.connectionId}:${v.version}`).join(',')).join(' ')}`;

  async function factsOf(client: Client, companyId: string): Promise<IntegrityFacts> {
    const versions = await versionsOf(client, companyId);
    const key = keyOf(companyId, versions);
    const cached = kept.get(key);
    if (cached) return cached;
    let pending = making.get(key);
    if (!pending) {
      pending = integrityFacts(deps.records, versions, () => clockFor({ clientId: client.id, companyId }).now().toISOString())
        .then((facts) => {
          kept.set(key, facts);
          return facts;
        })
        .finally(() => making.delete(key));
      making.set(key, pending);
    }
    return pending;
  }

  /** The side of the URL's type and the other, and whether both have what matching needs. */
  function sides(facts: IntegrityFacts, type: IntegrityType) {
    const own = isAccounting(type) ? facts.accounting : facts.banking;
    const other = isAccounting(type) ? facts.banking : facts.accounting;
    const connections = (side: Side) => (isTransactions(type) ? side.transactionConnections : side.accountConnections);
    return { own, other, source: connections(own), target: connections(other) };
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

  /** The URL type's entries `query` selects (all without one); 400 for a bad query. */
  function selected(type: IntegrityType, own: Side, query: string | undefined) {
    if (isTransactions(type)) {
      const filter = query ? rowFilter(query, { typeName: 'DataIntegrityDetail', fields: TRANSACTION_FIELDS }) : undefined;
      return { transactions: filter ? own.transactions.filter(filter) : own.transactions, accounts: [] as AccountEntry[] };
    }
    const filter = query ? rowFilter(query, { typeName: 'DataIntegrityDetail', fields: ACCOUNT_FIELDS }) : undefined;
    return { transactions: [] as TransactionEntry[], accounts: filter ? own.accounts.filter(filter) : own.accounts };
  }

  return {
    /** The status of matching the URL's type against its counterpart; DoesNotExist while either side is missing. */
    async status(client: Client, companyId: string, type: IntegrityType): Promise<{ metadata: IntegrityStatus[] }> {
      const facts = await factsOf(client, companyId);
      const { own, other, source, target } = sides(facts, type);
      const counterpart = COUNTERPART[type];
      if (source.length === 0 || target.length === 0) {
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
        const currencies = new Set<string>();
        for (const e of own.transactions) {
          currencies.add(e.currency);
          if (e.amount === undefined) continue;
          if (e.amount < min) min = e.amount;
          if (e.amount > max) max = e.amount;
        }
        status.amounts = {
          ...(Number.isFinite(min) && { min, max }),
          ...(currencies.size === 1 && { currency: [...currencies][0] }),
        };
        const span = (side: Side) => {
          let min = Infinity;
          let max = -Infinity;
          for (const e of side.transactions) {
            if (!Number.isFinite(e.day)) continue;
            if (e.day < min) min = e.day;
            if (e.day > max) max = e.day;
          }
          return { min, max };
        };
        const mine = span(own);
        const theirs = span(other);
        const overlapFrom = Math.max(mine.min, theirs.min);
        const overlapTo = Math.min(mine.max, theirs.max);
        status.dates = {
          ...(Number.isFinite(mine.min) && { minDate: midnight(mine.min), maxDate: midnight(mine.max) }),
          ...(Number.isFinite(overlapFrom) &&
            Number.isFinite(overlapTo) &&
            overlapFrom <= overlapTo && { minOverlappingDate: midnight(overlapFrom), maxOverlappingDate: midnight(overlapTo) }),
        };
      }
      return { metadata: [status] };
    },

    /** Matched, unmatched and total of the records `query` selects, by count and (transactions) by absolute amount. */
    async summaries(client: Client, companyId: string, type: IntegrityType, query: string | undefined) {
      const facts = await factsOf(client, companyId);
      const { own, source, target } = sides(facts, type);
      const chosen = selected(type, own, query);
      if (source.length === 0 || target.length === 0) return { summaries: [] };
      const entries: { matches: unknown[] }[] = isTransactions(type) ? chosen.transactions : chosen.accounts;
      const matchedCount = entries.filter((e) => e.matches.length > 0).length;
      const percentage = (part: number, whole: number) => (whole === 0 ? 0 : (part / whole) * 100);
      const byCount = {
        matchPercentage: percentage(matchedCount, entries.length),
        matched: matchedCount,
        unmatched: entries.length - matchedCount,
        total: entries.length,
      };
      if (!isTransactions(type)) return { summaries: [{ type: COUNTERPART[type], byCount }] };
      let matched = 0n;
      let unmatched = 0n;
      const currencies = new Set<string>();
      for (const e of chosen.transactions) {
        currencies.add(e.currency);
        if (e.units === null) continue;
        const size = BigInt(Math.abs(e.units));
        if (e.matches.length > 0) matched += size;
        else unmatched += size;
      }
      const byAmount = {
        matchPercentage: percentage(fromUnits(matched), fromUnits(matched + unmatched)),
        matched: fromUnits(matched),
        unmatched: fromUnits(unmatched),
        total: fromUnits(matched + unmatched),
        ...(currencies.size === 1 && { currency: [...currencies][0] }),
      };
      return { summaries: [{ type: COUNTERPART[type], byAmount, byCount }] };
    },

    /** A page of the URL type's records with what each matched (empty while either side is missing). */
    async details(client: Client, companyId: string, type: IntegrityType, page: PageRequest) {
      const facts = await factsOf(client, companyId);
      const { own, other, source, target } = sides(facts, type);
      const chosen = selected(type, own, page.query);
      const ready = source.length > 0 && target.length > 0;
      const from = (page.page - 1) * page.pageSize;
      if (isTransactions(type)) {
        const list = ready ? [...chosen.transactions] : [];
        list.sort(page.orderBy ? rowOrder(page.orderBy, { typeName: 'DataIntegrityDetail', fields: TRANSACTION_FIELDS }) : byDateThenId);
        return {
          totalResults: list.length,
          results: list.slice(from, from + page.pageSize).map((e) => transactionDetail(type, e, other)),
        };
      }
      const list = ready ? [...chosen.accounts] : [];
      if (page.orderBy) list.sort(rowOrder(page.orderBy, { typeName: 'DataIntegrityDetail', fields: ACCOUNT_FIELDS }));
      return {
        totalResults: list.length,
        results: list.slice(from, from + page.pageSize).map((e) => accountDetail(type, e, other)),
      };
    },

    /** Makes the matches of the company's current inputs now, unless they are made already (after a sync). */
    async refresh(client: Client, companyId: string): Promise<void> {
      await factsOf(client, companyId);
    },
  };
}

/** Details come by date, then id, unless `orderBy` says otherwise. */
function byDateThenId(x: TransactionEntry, y: TransactionEntry): number {
  // A record without a date comes first, as a missing value sorts first ascending.
  const dx = Number.isFinite(x.day) ? x.day : Number.MIN_SAFE_INTEGER;
  const dy = Number.isFinite(y.day) ? y.day : Number.MIN_SAFE_INTEGER;
  return dx - dy || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}

export type DataIntegrityService = ReturnType<typeof createDataIntegrityService>;
