/** What a bank statement file says, format aside. Amounts are decimal strings (see src/lib/decimal.ts). */

export type StatementFormat = 'OFX' | 'CAMT.053' | 'MT940' | 'CSV';

export interface StatementBalance {
  amount: string;
  /** `YYYY-MM-DD`. */
  date: string;
}

export interface StatementTransaction {
  /** The file's own id for the transaction (OFX FITID, CAMT AcctSvcrRef or NtryRef), when it has one. */
  id?: string;
  /** `YYYY-MM-DD`: when the bank booked it. */
  bookingDate: string;
  /** `YYYY-MM-DD`: when it counts for interest, where the file says. */
  valueDate?: string;
  /** Signed: credit +, debit −. */
  amount: string;
  currency: string;
  description: string;
  /** The bank's transaction code (OFX TRNTYPE, CAMT BkTxCd, MT940 transaction type), where the file has one. */
  bankCode?: string;
  /** The account's balance after it, where the file says. */
  balance?: string;
}

export interface StatementAccount {
  /** What identifies the account in the file: its IBAN, or bank code and number. */
  identifier: string;
  iban?: string;
  bic?: string;
  bankCode?: string;
  number?: string;
  currency: string;
  /** OFX ACCTTYPE (CHECKING, SAVINGS, CREDITLINE…) or `CREDITCARD`. */
  type?: string;
}

export interface ParsedStatement {
  format: StatementFormat;
  account: StatementAccount;
  /** The statement's own number or id, where it has one (MT940 :28C:, CAMT Stmt/Id). */
  reference?: string;
  /** The period it covers, `YYYY-MM-DD`. */
  from: string;
  to: string;
  opening?: StatementBalance;
  closing?: StatementBalance;
  available?: StatementBalance;
  transactions: StatementTransaction[];
  /** opening + Σ transactions = closing, exactly; null when the file has no opening balance (OFX). */
  reconciles: boolean | null;
}

/** A file that is not a statement of the format it looks like, or is broken: where (a line, an element) and why. */
export class StatementError extends Error {
  constructor(
    message: string,
    /** `line 12`, `Stmt[1]/Ntry[3]/Amt`. */
    readonly where?: string,
  ) {
    super(where ? `${where}: ${message}` : message);
    this.name = 'StatementError';
  }
}

/**
 * The same text, flattened: a description joined from pieces is a tree of them (a V8 cons string) until first read,
 * three or four times its size; reading a character flattens it in place. Called on the texts a statement keeps.
 */
export function flat(text: string): string {
  if (text.length > 0) text.charCodeAt(0);
  return text;
}

/** The first few lines with something on them (exports may begin with blank lines and a preamble). */
export function firstLinesOf(text: string, count = 6): string {
  return text.slice(0, 65_536).split(/\r\n|\r|\n/).filter((line) => line.trim() !== '').slice(0, count).join('\n');
}

/** `YYYY-MM-DD` naming a real day (not `2023-02-30`): every date a statement keeps is one. */
export function isCalendarDate(iso: string): boolean {
  // A statement repeats a few hundred dates a hundred thousand times: each is checked once.
  const known = checkedDates.get(iso);
  if (known !== undefined) return known;
  const time = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? Date.parse(`${iso}T00:00:00Z`) : NaN;
  const valid = Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === iso;
  if (checkedDates.size >= 4096) checkedDates.clear();
  checkedDates.set(iso, valid);
  return valid;
}
const checkedDates = new Map<string, boolean>();
