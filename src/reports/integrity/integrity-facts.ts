import { KEPT_AT, KEPT_FIELDS } from '../../records/record-fields.js';
import type { RecordReader } from '../../records/record-reader.js';
import { pairAccounts, type AccountIdentity } from '../matching/account-pairing.js';
import { engineAmount, matchMovements, type MatchPass, type Movement } from '../matching/match-engine.js';

/*
 * What data integrity and enhanced invoices read of a company (docs/lending/data-integrity.md): both sides' bank
 * movements and bank accounts, per connection, and the matches the engine (../matching/) finds in each pool: one
 * accounting connection against one banking connection, each banking connection on its own.
 */

export const INTEGRITY_TYPES = ['accountTransactions', 'banking-transactions', 'bankAccounts', 'banking-accounts'] as const;
export type IntegrityType = (typeof INTEGRITY_TYPES)[number];

/** The data type each is matched against. */
export const COUNTERPART: Record<IntegrityType, IntegrityType> = {
  accountTransactions: 'banking-transactions',
  'banking-transactions': 'accountTransactions',
  bankAccounts: 'banking-accounts',
  'banking-accounts': 'bankAccounts',
};

export interface TransactionEntry {
  /** As data integrity names it: `{accountId}_{id}` for account transactions, the record's id for banking ones. */
  id: string;
  recordId: string;
  connectionId: string;
  /** The record's date as it has it (accounting `date`; banking `postedDate`, else `authorizedDate`). */
  date: string | undefined;
  /** That date's day number (NaN when it has none: such a movement matches nothing). */
  day: number;
  /** The amount as the record has it (signed, money in positive). */
  amount: number | undefined;
  /** The amount in the engine's unit (ten-thousandths); null when it cannot be compared exactly. */
  units: number | null;
  currency: string;
  description: string;
  account: string;
  /** For account transactions: the records each line settles (payments, bill payments, transfers…), by id. */
  settles: { id: string; dataType: string }[];
  /** The other side's entries it matched, by index, with the pass that matched them. */
  matches: { entry: number; pass: MatchPass }[];
}

export interface AccountEntry {
  id: string;
  connectionId: string;
  accountName: string | undefined;
  institution: string | undefined;
  identity: AccountIdentity;
  matches: { entry: number }[];
}

export interface Side {
  /** The connections whose transactions (and, for accounts, accounts) are read, in order. */
  transactionConnections: string[];
  accountConnections: string[];
  transactions: TransactionEntry[];
  accounts: AccountEntry[];
}

export interface IntegrityFacts {
  accounting: Side;
  banking: Side;
  /** When the matching ran (business time). */
  matchedAt: string;
}

/** The synced versions read, per connection, for each of the four data types. */
export type IntegrityVersions = Record<IntegrityType, { connectionId: string; version: number }[]>;

type Reader = Pick<RecordReader, 'eachKept'>;

const T = KEPT_AT.accountTransaction;
const L = KEPT_AT.accountTransactionLine;
const B = KEPT_AT.bankingTransaction;
const A = KEPT_AT.bankAccount;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** One string per distinct value (accounts, currencies): a million entries then share a few strings. */
function interner() {
  const seen = new Map<string, string>();
  return (value: string): string => {
    const kept = seen.get(value);
    if (kept !== undefined) return kept;
    seen.set(value, value);
    return value;
  };
}

async function readTransactions(reader: Reader, versions: IntegrityVersions, type: 'accountTransactions' | 'banking-transactions') {
  const entries: TransactionEntry[] = [];
  const intern = interner();
  for (const { connectionId, version } of versions[type]) {
    await reader.eachKept([version], KEPT_FIELDS[type] ?? [], (tuple) => {
      if (type === 'accountTransactions') {
        const lines = (Array.isArray(tuple[T.lines]) ? tuple[T.lines] : []) as unknown[][];
        const account = intern(text(tuple[T.account]) ?? '');
        const amount = number(tuple[T.amount]);
        const described = lines.map((line) => text(line[L.description])).find((d) => d !== undefined && d.trim() !== '');
        entries.push({
          id: `${account}_${String(tuple[T.id])}`,
          recordId: String(tuple[T.id]),
          connectionId,
          date: text(tuple[T.date]),
          day: typeof tuple[T.day] === 'number' ? (tuple[T.day] as number) : NaN,
          amount,
          units: engineAmount(amount),
          currency: intern(text(tuple[T.currency]) ?? ''),
          description: described ?? text(tuple[T.note]) ?? '',
          account,
          settles: lines.flatMap((line) =>
            text(line[L.id]) !== undefined ? [{ id: text(line[L.id])!, dataType: intern(text(line[L.dataType]) ?? '') }] : [],
          ),
          matches: [],
        });
        return;
      }
      const posted = typeof tuple[B.postedDay] === 'number';
      const amount = number(tuple[B.amount]);
      entries.push({
        id: String(tuple[B.id]),
        recordId: String(tuple[B.id]),
        connectionId,
        date: text(posted ? tuple[B.posted] : tuple[B.authorized]),
        day: posted
          ? (tuple[B.postedDay] as number)
          : typeof tuple[B.authorizedDay] === 'number'
            ? (tuple[B.authorizedDay] as number)
            : NaN,
        amount,
        units: engineAmount(amount),
        currency: intern(text(tuple[B.currency]) ?? ''),
        description: text(tuple[B.description]) ?? '',
        account: intern(text(tuple[B.account]) ?? ''),
        settles: [],
        matches: [],
      });
    });
  }
  return entries;
}

async function readAccounts(reader: Reader, versions: IntegrityVersions, type: 'bankAccounts' | 'banking-accounts') {
  const entries: AccountEntry[] = [];
  for (const { connectionId, version } of versions[type]) {
    await reader.eachKept([version], KEPT_FIELDS[type] ?? [], (tuple) => {
      const id = String(tuple[A.id]);
      entries.push({
        id,
        connectionId,
        accountName: text(tuple[A.name]),
        institution: text(tuple[A.institution]),
        identity: {
          id,
          iban: text(tuple[A.iban]),
          sortCode: text(tuple[A.sortCode]),
          number: text(tuple[A.number]),
          currency: text(tuple[A.currency]),
        },
        matches: [],
      });
    });
  }
  return entries;
}

export const connectionsOf = (list: { connectionId: string }[]) => [...new Set(list.map((v) => v.connectionId))];

/** Transactions by date then id (those without a date first), accounts by id: the order details are served in. */
function byDateThenId(x: TransactionEntry, y: TransactionEntry): number {
  const dx = Number.isFinite(x.day) ? x.day : Number.MIN_SAFE_INTEGER;
  const dy = Number.isFinite(y.day) ? y.day : Number.MIN_SAFE_INTEGER;
  return dx - dy || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}
const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/** Each connection's entries, by index, in one pass. */
function byConnection(list: { connectionId: string }[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  list.forEach((entry, index) => {
    const indexes = out.get(entry.connectionId);
    if (indexes) indexes.push(index);
    else out.set(entry.connectionId, [index]);
  });
  return out;
}

/** Reads both sides and matches every pool. */
export async function integrityFacts(reader: Reader, versions: IntegrityVersions, matchedAt: () => string): Promise<IntegrityFacts> {
  const accounting: Side = {
    transactionConnections: connectionsOf(versions.accountTransactions),
    accountConnections: connectionsOf(versions.bankAccounts),
    transactions: (await readTransactions(reader, versions, 'accountTransactions')).sort(byDateThenId),
    accounts: (await readAccounts(reader, versions, 'bankAccounts')).sort(byId),
  };
  const banking: Side = {
    transactionConnections: connectionsOf(versions['banking-transactions']),
    accountConnections: connectionsOf(versions['banking-accounts']),
    transactions: (await readTransactions(reader, versions, 'banking-transactions')).sort(byDateThenId),
    accounts: (await readAccounts(reader, versions, 'banking-accounts')).sort(byId),
  };
  // Claims and ties go by the records' own ids.
  const movement = (entry: TransactionEntry): Movement => ({
    id: entry.recordId,
    account: entry.account,
    currency: entry.currency,
    day: entry.day,
    amount: entry.units ?? 0,
    description: entry.description,
  });
  const sideOf = (side: Side) => {
    const accounts = byConnection(side.accounts);
    const moves = byConnection(side.transactions);
    const movements = new Map([...moves].map(([connection, indexes]) => [connection, indexes.map((i) => movement(side.transactions[i]))]));
    return { accounts, moves, movements };
  };
  const left = sideOf(accounting);
  const right = sideOf(banking);
  const connections = (side: Side) => new Set([...side.transactionConnections, ...side.accountConnections]);

  for (const leftConnection of connections(accounting)) {
    const leftAccounts = left.accounts.get(leftConnection) ?? [];
    for (const rightConnection of connections(banking)) {
      const rightAccounts = right.accounts.get(rightConnection) ?? [];
      const pairs = pairAccounts(
        leftAccounts.map((i) => accounting.accounts[i].identity),
        rightAccounts.map((i) => banking.accounts[i].identity),
      );
      const leftIndex = new Map(leftAccounts.map((i) => [accounting.accounts[i].id, i]));
      const rightIndex = new Map(rightAccounts.map((i) => [banking.accounts[i].id, i]));
      for (const [a, b] of pairs) {
        accounting.accounts[leftIndex.get(a)!].matches.push({ entry: rightIndex.get(b)! });
        banking.accounts[rightIndex.get(b)!].matches.push({ entry: leftIndex.get(a)! });
      }

      const leftMoves = left.moves.get(leftConnection);
      const rightMoves = right.moves.get(rightConnection);
      if (!leftMoves || !rightMoves) continue;
      const result = matchMovements({
        accounting: left.movements.get(leftConnection)!,
        banking: right.movements.get(rightConnection)!,
        accountPairs: pairs,
      });
      for (const match of result.matches) {
        const a = leftMoves[match.accounting];
        for (const k of match.banking) {
          const b = rightMoves[k];
          accounting.transactions[a].matches.push({ entry: b, pass: match.pass });
          banking.transactions[b].matches.push({ entry: a, pass: match.pass });
        }
      }
    }
  }
  return { accounting, banking, matchedAt: matchedAt() };
}

/**
 * About how many bytes the facts hold, for the cache's bound: measured at about 2 KB a transaction (entry, strings,
 * matches; bench:integrity's server grew by 320 to 550 MB for 250,000).
 */
export function integrityFactsBytes(facts: IntegrityFacts): number {
  const side = (s: Side) => s.transactions.length * 2048 + s.accounts.length * 512;
  return side(facts.accounting) + side(facts.banking) + 1024;
}
