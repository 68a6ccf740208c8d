import { memoize } from '../../lib/memoize.js';

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
  /** What the reader had to assume, told to the uploader as a warning (a CAMT balance taken from another code). */
  notes?: string[];
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
 * The same text, as a string of its own. A statement keeps its texts for as long as its file is being imported,
 * and two kinds of string would keep far more than their text alive: a text joined from pieces is a tree of them
 * (a V8 cons string, three or four times its size) until first read, and a piece of the file's text of 13
 * characters or more is a slice of it, which keeps the whole file's text (megabytes) alive. The copy is flat.
 * Called on the texts a statement keeps.
 */
export function own(text: string): string;
export function own(text: string | undefined): string | undefined;
export function own(text: string | undefined): string | undefined {
  // Shorter pieces are copies already; the copy of a longer one is a slice of a new flat string one longer.
  return text === undefined || text.length < 13 ? text : (' ' + text).slice(1);
}

/** The account with its texts as strings of their own (see own). */
export function ownAccount(account: StatementAccount): StatementAccount {
  const copy: StatementAccount = { ...account };
  for (const key of Object.keys(copy) as (keyof StatementAccount)[]) copy[key] = own(copy[key]) as string;
  return copy;
}

/**
 * A statement's transaction as kept while its file is imported (a 10 MB file holds a hundred thousand): made in one
 * go, so its fields sit inside the object (fields added later would need a second block), with the optional ones
 * only where one is present (two shapes); the texts that repeat (dates, currency, codes) shared; the others
 * strings of their own (see own). `descriptionIsOwn`: the parser made the description a flat string of its own.
 */
export function keptTransaction(t: StatementTransaction, options: { descriptionIsOwn?: boolean } = {}): StatementTransaction {
  const bookingDate = shared(t.bookingDate);
  const currency = shared(t.currency);
  const description = options.descriptionIsOwn ? t.description : own(t.description);
  if (t.id === undefined && t.valueDate === undefined && t.bankCode === undefined && t.balance === undefined)
    return { bookingDate, amount: t.amount, currency, description };
  return {
    id: own(t.id),
    bookingDate,
    valueDate: shared(t.valueDate),
    amount: t.amount,
    currency,
    description,
    bankCode: shared(t.bankCode),
    balance: t.balance,
  };
}

/** One string for each repeated short text (a statement repeats a few hundred dates and codes a hundred thousand times). */
function shared(text: string): string;
function shared(text: string | undefined): string | undefined;
function shared(text: string | undefined): string | undefined {
  return text === undefined || text.length > 32 ? own(text) : sharedText(text);
}
const sharedText = memoize((text: string) => own(text));

/** The first few lines with something on them (exports may begin with blank lines and a preamble). */
export function firstLinesOf(text: string, count = 6): string {
  return text
    .slice(0, 65_536)
    .split(/\r\n|\r|\n/)
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .join('\n');
}
