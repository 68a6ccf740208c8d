import { sha1 } from '../../lib/sha1.js';
import { memoize } from '../../lib/memoize.js';
import type { SourceRecord } from '../connector.js';
import type { ParsedStatement, StatementTransaction } from './statement.js';
import { statementWarning } from './statement-report.js';

/**
 * Statements as Codat's banking data types, merged across every file uploaded so far:
 * - accounts: one per account identifier and currency; the current balance is the latest statement's closing
 *   balance, the available balance its available one;
 * - transactions: ids are stable across uploads, so the same statement uploaded twice, or the next month's file
 *   repeating days, adds nothing twice. The id is the file's own transaction id where it has one unique in its
 *   statement (OFX FITID, CAMT AcctSvcrRef, MT940 bank reference); otherwise a fingerprint of the account, the booking date, the amount and
 *   the description, with the occurrence among identical ones in the same statement (two identical coffees on one
 *   day are two transactions; the same statement again gives the same two ids);
 * - account balances: a statement's closing balance on its last date, and its opening balance dated the day
 *   before its first date;
 * - transaction categories: the banks' own transaction codes, where files carry them.
 */
export interface BankingData {
  accounts: SourceRecord[];
  transactions: SourceRecord[];
  balances: SourceRecord[];
  categories: SourceRecord[];
  /** Statements whose opening + Σ transactions ≠ closing: named, still imported. */
  warnings: string[];
}

const hash = (text: string) => sha1(text, 'hex').slice(0, 20);
/** `txn-` and the hash, as one flat string (a template would keep a tree of strings per transaction, and a slice its whole hash). */
const transactionId = (text: string) => ['txn-', sha1(text, 'hex').slice(0, 20)].join('');
const local = (date: string) => `${date}T00:00:00`;
const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** The account's stable id: its identifier and currency. */
export function accountIdOf(statement: Pick<ParsedStatement, 'account'>): string {
  return `acct-${hash(`${statement.account.identifier}\u0000${statement.account.currency}`)}`;
}

/**
 * The stable id of each transaction of a statement (see above), asked for in the statement's order. The
 * occurrence count is keyed by the first occurrence's id, not by the (long) fingerprint.
 */
export function transactionIds(statement: ParsedStatement): (t: ParsedStatement['transactions'][number]) => string {
  const accountId = accountIdOf(statement);
  const seen = new Map<string, number>();
  // A file's id counts only where it is unique in its statement (some banks repeat one reference on several lines).
  const uses = new Map<string, number>();
  for (const t of statement.transactions) if (t.id) uses.set(t.id, (uses.get(t.id) ?? 0) + 1);
  return (t) => {
    if (t.id && uses.get(t.id) === 1) return transactionId(`${accountId}\u0000id\u0000${t.id}`);
    const print = `${accountId}\u0000${t.id ?? ''}\u0000${t.bookingDate}\u0000${t.amount}\u0000${t.description}`;
    const first = transactionId(`${print}\u00001`);
    const n = (seen.get(first) ?? 0) + 1;
    seen.set(first, n);
    return n === 1 ? first : transactionId(`${print}\u0000${n}`);
  };
}

/** Each transaction's stable id, in the statement's order. */
export function transactionIdsOf(statement: ParsedStatement): string[] {
  const idOf = transactionIds(statement);
  return statement.transactions.map(idOf);
}

/** Codat's transaction code from the bank's: OFX TRNTYPE, SWIFT (MT940) and ISO (CAMT) codes where they say. */
function codeOf(bankCode: string | undefined): string {
  const code = (bankCode ?? '').toUpperCase();
  return CODE_TABLE.find(([re]) => re.test(code))?.[1] ?? 'Other';
}
const CODE_TABLE: [RegExp, string][] = [
  [/^(FEE|SRVCHG|NCHG|NCOM)$|CHRG/, 'Fee'],
  [/^(INT|DIV|NINT)$|INTR/, 'Interest'],
  [/^(CHECK|NCHK|NCHQ)$|CHK/, 'Cheque'],
  [/^(ATM|CASH|NCAS)$|CWDL/, 'Cash'],
  [/^(XFER|NTRF)$|ESCT|DMCT|ICCT/, 'Transfer'],
  [/^(DIRECTDEBIT|NDDT)$|DD$|ESDD/, 'DirectDebit'],
  [/^(REPEATPMT|NSTO)$|STDO/, 'StandingOrder'],
  [/^(POS|DEBIT)$|POSD/, 'Purchase'],
  [/^(PAYMENT|NPAY)$/, 'Payment'],
  [/^(CREDIT|DEP|DIRECTDEP)$/, 'Credit'],
];

/** Each bank code's category, made once (a statement repeats a few codes on every transaction). */
const categoryOf = memoize((bankCode: string) => ({ id: `cat-${hash(bankCode)}`, name: bankCode }));

/**
 * A statement without its transactions: what accounts, balances and categories are made from, kept small beside
 * an uploaded file (its transactions are kept as records, see transactionRecords).
 */
export type StatementSummary = Omit<ParsedStatement, 'transactions'> & {
  transactionCount: number;
  /** The bank codes its transactions carry, each once. */
  codes: string[];
  /** Per day with a running balance in the file, the last one of the day (in the statement's order). */
  days: [date: string, balance: string][];
};

export function summaryOf(statement: ParsedStatement): StatementSummary {
  const { transactions, ...rest } = statement;
  const codes = new Set<string>();
  const days = new Map<string, string>();
  for (const t of transactions) {
    if (t.bankCode) codes.add(t.bankCode);
    if (t.balance !== undefined) days.set(t.bookingDate, t.balance);
  }
  return { ...rest, transactionCount: transactions.length, codes: [...codes], days: [...days] };
}

/** One transaction as Codat's banking transaction. */
function transactionRecord(t: StatementTransaction, id: string, accountId: string, modified: string): SourceRecord {
  const category = t.bankCode ? categoryOf(t.bankCode) : undefined;
  return {
    id,
    sourceModifiedDate: modified,
    data: {
      id,
      accountId,
      description: t.description || null,
      amount: Number(t.amount),
      currency: t.currency,
      postedDate: local(t.bookingDate),
      ...(t.valueDate ? { authorizedDate: local(t.valueDate) } : {}),
      code: codeOf(t.bankCode),
      ...(category ? { transactionCategoryRef: category } : {}),
      sourceModifiedDate: modified,
    },
  };
}

/** The statement's transactions as Codat's banking transactions, in the statement's order. */
export function* transactionRecords(statement: ParsedStatement, modified: string): Generator<SourceRecord> {
  const accountId = accountIdOf(statement);
  const idOf = transactionIds(statement);
  for (const t of statement.transactions) yield transactionRecord(t, idOf(t), accountId, modified);
}

/**
 * A transaction as a file keeps it among its records (see transactionLines): its id, its account's, then the
 * statement's fields. A sixth of a record's JSON, so a large file's records are small to keep, send and read.
 */
export type TransactionLine = [
  id: string,
  accountId: string,
  bookingDate: string,
  valueDate: string | null,
  amount: string,
  currency: string,
  description: string,
  bankCode: string | null,
];

/** The record of a kept transaction line, stamped with when its file was uploaded. */
export function recordOfLine(line: TransactionLine, modified: string): SourceRecord {
  const [id, accountId, bookingDate, valueDate, amount, currency, description, bankCode] = line;
  return transactionRecord(
    { bookingDate, amount, currency, description, ...(valueDate ? { valueDate } : {}), ...(bankCode ? { bankCode } : {}) },
    id,
    accountId,
    modified,
  );
}

/**
 * The transactions of a file's statements as lines (see TransactionLine) in ascending id order, each id once
 * (where a file repeats a transaction in a later statement, the later one's): what a file keeps, so that a sync
 * merges the files instead of sorting every record again.
 */
export function* transactionLines(statements: readonly ParsedStatement[]): Generator<TransactionLine> {
  const ids: string[] = [];
  // Transaction n is statement s's (n - starts[s])th, where s is statementOf[n].
  const starts: number[] = [];
  for (const statement of statements) {
    starts.push(ids.length);
    const idOf = transactionIds(statement);
    for (const t of statement.transactions) ids.push(idOf(t));
  }
  const statementOf = new Uint32Array(ids.length);
  starts.forEach((start, s) => statementOf.fill(s, start, s + 1 < starts.length ? starts[s + 1] : ids.length));
  // By id, then by place in the file: the last of an id is the one kept.
  const order = Uint32Array.from(ids.keys()).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : a - b));
  const accountIds = statements.map(accountIdOf);
  for (let k = 0; k < order.length; k++) {
    const n = order[k];
    if (k + 1 < order.length && ids[order[k + 1]] === ids[n]) continue;
    const s = statementOf[n];
    const t = statements[s].transactions[n - starts[s]];
    yield [ids[n], accountIds[s], t.bookingDate, t.valueDate ?? null, t.amount, t.currency, t.description, t.bankCode ?? null];
  }
}

/** A summary with when the file holding it was uploaded (its records' `sourceModifiedDate`). */
export type UploadedSummary = StatementSummary & { uploaded?: string };

/** The statements' warnings (not reconciling, a balance read from another code), each once (a statement uploaded twice warns once). */
export function warningsOf(summaries: readonly Omit<ParsedStatement, 'transactions'>[]): string[] {
  const warnings = new Set<string>();
  for (const statement of summaries) {
    const warning = statementWarning(statement);
    if (warning) warnings.add(warning);
  }
  return [...warnings];
}

/** Accounts, balances and categories from statement summaries (every file so far, oldest first); the warnings. */
export function bankingReferenceData(summaries: readonly UploadedSummary[], modified: string): Omit<BankingData, 'transactions'> {
  const accounts = new Map<string, UploadedSummary>();
  const balances = new Map<string, SourceRecord>();
  const categories = new Map<string, SourceRecord>();
  for (const statement of summaries) {
    const stamp = statement.uploaded ?? modified;
    const accountId = accountIdOf(statement);
    const known = accounts.get(accountId);
    if (!known || statement.to >= known.to) accounts.set(accountId, statement);
    const balance = (date: string, amount: string, available?: string) => {
      const id = `bal-${hash(`${accountId}\u0000${date}`)}`;
      balances.set(id, {
        id,
        sourceModifiedDate: stamp,
        data: {
          id,
          accountId,
          balance: { current: Number(amount), available: available === undefined ? null : Number(available), limit: null },
          date: local(date),
          sourceModifiedDate: stamp,
        },
      });
    };
    for (const code of statement.codes) {
      const category = categoryOf(code);
      if (!categories.has(category.id)) {
        categories.set(category.id, {
          id: category.id,
          sourceModifiedDate: stamp,
          data: { ...category, parentId: null, hasChildren: false, status: 'Active', sourceModifiedDate: stamp },
        });
      }
    }
    for (const [date, amount] of statement.days) balance(date, amount);
    if (statement.opening) balance(dayBefore(statement.from), statement.opening.amount);
    if (statement.closing) balance(statement.to, statement.closing.amount, statement.available?.amount);
  }
  const accountRecords = [...accounts.entries()].map(([id, latest]) => {
    const a = latest.account;
    const card = a.type === 'CREDITCARD';
    const stamp = latest.uploaded ?? modified;
    return {
      id,
      sourceModifiedDate: stamp,
      data: {
        id,
        name: a.iban ?? a.identifier,
        type: card ? 'Credit' : 'Debit',
        balance: {
          current: latest.closing ? Number(latest.closing.amount) : undefined,
          available: latest.available ? Number(latest.available.amount) : null,
          limit: null,
        },
        identifiers: {
          type: card ? 'Card' : 'Depository',
          subtype: a.type ?? null,
          number: a.number ?? null,
          bankCode: a.bankCode ?? null,
          iban: a.iban ?? null,
          bic: a.bic ?? null,
          maskedAccountNumber: mask(a.iban ?? a.number ?? a.identifier),
        },
        currency: a.currency,
        institution: { name: a.bic ?? a.bankCode ?? 'Bank statement files' },
        sourceModifiedDate: stamp,
      },
    } satisfies SourceRecord;
  });
  return {
    accounts: accountRecords.sort(byId),
    balances: [...balances.values()].sort(byId),
    categories: [...categories.values()].sort(byId),
    warnings: warningsOf(summaries),
  };
}

const byId = (a: SourceRecord, b: SourceRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A statement with when the file holding it was uploaded (its records' `sourceModifiedDate`). */
export type UploadedStatement = ParsedStatement & { uploaded?: string };

/**
 * All four data types from whole statements (the same records a sync serves from uploads: reference data from
 * their summaries, transactions from their records, a later statement's record of an id replacing an earlier's).
 */
export function bankingData(statements: readonly UploadedStatement[], modified: string): BankingData {
  const reference = bankingReferenceData(
    statements.map((s) => Object.assign(summaryOf(s), { uploaded: s.uploaded })),
    modified,
  );
  const transactions = new Map<string, SourceRecord>();
  for (const statement of statements)
    for (const record of transactionRecords(statement, statement.uploaded ?? modified)) transactions.set(record.id, record);
  return { ...reference, transactions: [...transactions.values()].sort(byId) };
}

function mask(number: string): string {
  const compact = number.replace(/\s/g, '');
  return compact.length <= 4 ? compact : `${'*'.repeat(compact.length - 4)}${compact.slice(-4)}`;
}
