import { createHash } from 'node:crypto';
import type { SourceRecord } from '../connector.js';
import type { ParsedStatement, StatementTransaction } from './statement.js';
import { reconciliationWarning } from './statement-report.js';

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

const hash = (text: string) => createHash('sha1').update(text).digest('hex').slice(0, 20);
const local = (date: string) => `${date}T00:00:00`;
const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** The account's stable id: its identifier and currency. */
export function accountIdOf(statement: Pick<ParsedStatement, 'account'>): string {
  return `acct-${hash(`${statement.account.identifier}\u0000${statement.account.currency}`)}`;
}

/** Each transaction's stable id (see above), in the statement's order. */
export function transactionIdsOf(statement: ParsedStatement): string[] {
  const accountId = accountIdOf(statement);
  const seen = new Map<string, number>();
  // A file's id counts only where it is unique in its statement (some banks repeat one reference on several lines).
  const uses = new Map<string, number>();
  for (const t of statement.transactions) if (t.id) uses.set(t.id, (uses.get(t.id) ?? 0) + 1);
  return statement.transactions.map((t) => {
    if (t.id && uses.get(t.id) === 1) return `txn-${hash(`${accountId}\u0000id\u0000${t.id}`)}`;
    const print = `${accountId}\u0000${t.id ?? ''}\u0000${t.bookingDate}\u0000${t.amount}\u0000${t.description}`;
    const n = (seen.get(print) ?? 0) + 1;
    seen.set(print, n);
    return `txn-${hash(`${print}\u0000${n}`)}`;
  });
}

/** Codat's transaction code from the bank's: OFX TRNTYPE, SWIFT (MT940) and ISO (CAMT) codes where they say. */
function codeOf(t: StatementTransaction): string {
  const code = (t.bankCode ?? '').toUpperCase();
  const table: [RegExp, string][] = [
    [/^(FEE|SRVCHG|NCHG|NCOM)$|CHRG/, 'Fee'], [/^(INT|DIV|NINT)$|INTR/, 'Interest'], [/^(CHECK|NCHK|NCHQ)$|CHK/, 'Cheque'],
    [/^(ATM|CASH|NCAS)$|CWDL/, 'Cash'], [/^(XFER|NTRF)$|ESCT|DMCT|ICCT/, 'Transfer'], [/^(DIRECTDEBIT|NDDT)$|DD$|ESDD/, 'DirectDebit'],
    [/^(REPEATPMT|NSTO)$|STDO/, 'StandingOrder'], [/^(POS|DEBIT)$|POSD/, 'Purchase'], [/^(PAYMENT|NPAY)$/, 'Payment'],
    [/^(CREDIT|DEP|DIRECTDEP)$/, 'Credit'],
  ];
  return table.find(([re]) => re.test(code))?.[1] ?? 'Other';
}

/** A statement with when the file holding it was uploaded (its records' `sourceModifiedDate`). */
export type UploadedStatement = ParsedStatement & { uploaded?: string };

/**
 * `want` leaves out the transactions (the heavy part) when only accounts, balances or categories are read.
 * Running balances the file gives (a CSV balance column, MT940/CAMT do not) become each day's closing balance.
 */
export function bankingData(statements: readonly UploadedStatement[], modified: string, want: { transactions?: boolean } = {}): BankingData {
  const withTransactions = want.transactions ?? true;
  const accounts = new Map<string, { statement: UploadedStatement; latest: UploadedStatement }>();
  const transactions = new Map<string, SourceRecord>();
  const balances = new Map<string, SourceRecord>();
  const categories = new Map<string, SourceRecord>();
  const warnings: string[] = [];
  for (const statement of statements) {
    const stamp = statement.uploaded ?? modified;
    const accountId = accountIdOf(statement);
    const known = accounts.get(accountId);
    if (!known || statement.to >= known.latest.to) accounts.set(accountId, { statement: known?.statement ?? statement, latest: statement });
    const warning = reconciliationWarning(statement);
    if (warning && !warnings.includes(warning)) warnings.push(warning);
    const ids = withTransactions ? transactionIdsOf(statement) : [];
    const balance = (date: string, amount: string, available?: string) => {
      const id = `bal-${hash(`${accountId}\u0000${date}`)}`;
      balances.set(id, {
        id, sourceModifiedDate: stamp,
        data: { id, accountId, balance: { current: Number(amount), available: available === undefined ? null : Number(available), limit: null }, date: local(date), sourceModifiedDate: stamp },
      });
    };
    statement.transactions.forEach((t, i) => {
      const category = t.bankCode ? { id: `cat-${hash(t.bankCode)}`, name: t.bankCode } : undefined;
      if (category && !categories.has(category.id)) {
        categories.set(category.id, { id: category.id, sourceModifiedDate: stamp, data: { id: category.id, name: category.name, parentId: null, hasChildren: false, status: 'Active', sourceModifiedDate: stamp } });
      }
      // In the statement's (chronological) order, the last running balance of a day is that day's balance.
      if (t.balance !== undefined) balance(t.bookingDate, t.balance);
      if (!withTransactions) return;
      transactions.set(ids[i], {
        id: ids[i], sourceModifiedDate: stamp, data: {
          id: ids[i], accountId, description: t.description || null, amount: Number(t.amount), currency: t.currency,
          postedDate: local(t.bookingDate), ...(t.valueDate ? { authorizedDate: local(t.valueDate) } : {}), code: codeOf(t),
          ...(category ? { transactionCategoryRef: category } : {}), sourceModifiedDate: stamp,
        },
      });
    });
    if (statement.opening) balance(dayBefore(statement.from), statement.opening.amount);
    if (statement.closing) balance(statement.to, statement.closing.amount, statement.available?.amount);
  }
  const accountRecords = [...accounts.entries()].map(([id, { latest }]) => {
    const a = latest.account;
    const card = a.type === 'CREDITCARD';
    return {
      id, sourceModifiedDate: latest.uploaded ?? modified, data: {
        id, name: a.iban ?? a.identifier, type: card ? 'Credit' : 'Debit',
        balance: { current: latest.closing ? Number(latest.closing.amount) : undefined, available: latest.available ? Number(latest.available.amount) : null, limit: null },
        identifiers: {
          type: card ? 'Card' : 'Depository', subtype: a.type ?? null, number: a.number ?? null, bankCode: a.bankCode ?? null, iban: a.iban ?? null, bic: a.bic ?? null,
          maskedAccountNumber: mask(a.iban ?? a.number ?? a.identifier),
        },
        currency: a.currency, institution: { name: a.bic ?? a.bankCode ?? 'Bank statement files' }, sourceModifiedDate: latest.uploaded ?? modified,
      },
    } satisfies SourceRecord;
  });
  const byId = (a: SourceRecord, b: SourceRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return {
    accounts: accountRecords.sort(byId), transactions: [...transactions.values()].sort(byId), balances: [...balances.values()].sort(byId),
    categories: [...categories.values()].sort(byId), warnings,
  };
}

function mask(number: string): string {
  const compact = number.replace(/\s/g, '');
  return compact.length <= 4 ? compact : `${'*'.repeat(compact.length - 4)}${compact.slice(-4)}`;
}
