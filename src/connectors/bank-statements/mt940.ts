import { isCalendarDate } from '../../lib/calendar-date.js';
import { negateDecimal, parseDecimal } from '../../lib/decimal.js';
import { reconciles } from './reconcile.js';
import {
  own,
  ownAccount,
  keptTransaction,
  StatementError,
  type ParsedStatement,
  type StatementBalance,
  type StatementTransaction,
} from './statement.js';

/**
 * SWIFT MT940 customer statements. Written here: the maintained npm parser (mt940js 1.3) reads amounts as binary
 * floats and stops on two of the five real sample files (an ABN AMRO preamble, Sberbank's `:NS:` fields).
 *
 * A file holds any number of statements, each from `:20:` to the closing balance (`:62F:`/`:62M:`, then optional
 * `:64:`/`:65:`/`:86:` and a `-` line). Text outside a statement (SWIFT blocks, bank preambles) is skipped. A tag
 * runs until the next line that starts a tag; unknown tags (`:NS:`) are skipped. Each `:61:` is a transaction, and
 * the `:86:` after it its description.
 */

interface Field {
  tag: string;
  value: string;
  line: number;
}

const TAG = /^:(\d{2}[A-Z]?|NS):/;

/**
 * The fields of the file one at a time, each with the line it starts on (a field is complete when the next tag,
 * a `-` line or the end comes); text outside statements is dropped. Lines are read in place: the file is never
 * split into an array of lines.
 */
function* fields(source: string): Generator<Field> {
  // Old Mac files end lines with CR alone. A DOS end-of-file mark (0x1A) ends a line: concatenated exports carry
  // one at the end of each, right before the next file's `:20:`.
  const unmarked = source.includes('\x1a') ? source.replace(/\x1a/g, '\n') : source;
  const text = unmarked.includes('\n') ? unmarked : unmarked.replace(/\r/g, '\n');
  let current: Field | undefined;
  let inStatement = false;
  let lineNumber = 0;
  for (let pos = 0; pos <= text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    let stop = end;
    while (stop > pos && WHITESPACE.test(text[stop - 1])) stop--;
    const line = text.slice(pos, stop);
    lineNumber++;
    pos = end + 1;
    const match = line.charCodeAt(0) === 58 /* : */ ? TAG.exec(line) : null;
    if (match) {
      if (match[1] === '20') inStatement = true;
      if (!inStatement) continue;
      if (current) yield current;
      current = { tag: match[1], value: line.slice(match[0].length), line: lineNumber };
      continue;
    }
    // The end of a statement: `-`, or `-}` with the SWIFT trailer block after it (`-}{5:{CHK:…}}`).
    if (line === '-' || line.startsWith('-}')) {
      if (current) yield current;
      current = undefined;
      inStatement = false;
      continue;
    }
    if (current && inStatement && line !== '') current.value += `\n${line}`;
  }
  if (current) yield current;
}

const WHITESPACE = /\s/;

/** `YYMMDD` → `YYYY-MM-DD` (years 80–99 are 19xx). */
function date(yymmdd: string, where: string): string {
  if (!/^\d{6}$/.test(yymmdd)) throw new StatementError(`${yymmdd} is not a date (YYMMDD)`, where);
  const yy = Number(yymmdd.slice(0, 2));
  const iso = `${yy >= 80 ? 1900 + yy : 2000 + yy}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
  if (!isCalendarDate(iso)) throw new StatementError(`${yymmdd} is not a date (YYMMDD)`, where);
  return iso;
}

function amount(text: string, where: string): string {
  const value = /^\d+,\d*$/.test(text) ? parseDecimal(text, ',') : undefined;
  if (value === undefined) throw new StatementError(`${JSON.stringify(text)} is not an MT940 amount (digits, a decimal comma)`, where);
  return value;
}

/** `:60F:C110522EUR3236,28` */
function balance(field: Field): StatementBalance & { currency: string } {
  const where = `line ${field.line}`;
  const m = /^([CD])(\d{6})([A-Z]{3})(\d+,\d*)$/.exec(field.value.split('\n')[0].trim());
  if (!m) throw new StatementError(`:${field.tag}: is not a balance (C or D, YYMMDD, currency, amount)`, where);
  const value = amount(m[4], where);
  return { amount: m[1] === 'D' ? negateDecimal(value) : value, date: date(m[2], where), currency: m[3] };
}

/** `:61:1105240524D9,N192NONREF//bankref` (value date, optional entry date, mark, funds code, amount, type, reference). */
function transaction(field: Field, currency: string): { transaction: StatementTransaction; reference: string; details: string } {
  const where = `line ${field.line}`;
  const [first, ...rest] = field.value.split('\n');
  const m = /^(\d{6})(\d{4})?(RC|RD|C|D)([A-Z])?(\d+,\d*)([NSF].{3})(.*)$/.exec(first);
  if (!m) throw new StatementError(':61: is not a statement line (value date, C/D/RC/RD, amount, type, reference)', where);
  const valueDate = date(m[1], where);
  let bookingDate = valueDate;
  if (m[2]) {
    // The entry date has no year: the value date's, or the next/previous one across a year end.
    const year = Number(valueDate.slice(0, 4));
    const candidates = [year - 1, year, year + 1].map((y) => `${y}-${m[2].slice(0, 2)}-${m[2].slice(2, 4)}`).filter(isCalendarDate);
    if (candidates.length === 0) throw new StatementError(`${m[2]} is not an entry date (MMDD)`, where);
    const value = Date.parse(valueDate);
    bookingDate = candidates.reduce((best, c) => (Math.abs(Date.parse(c) - value) < Math.abs(Date.parse(best) - value) ? c : best));
  }
  const value = amount(m[5], where);
  // C credit, D debit; RC reverses a credit (money out), RD reverses a debit (money in).
  const signed = m[3] === 'D' || m[3] === 'RC' ? negateDecimal(value) : value;
  const [reference, bankReference] = m[7].split('//');
  const supplementary = rest.join(' ').replace(/\s+/g, ' ').trim();
  // Rabobank's classic layout writes the counterparty's account, spaces, then its name where the reference goes
  // (`N084P002445588      Belastingdienst Apeldoor`; `NONREF` for none): both are the narrative, not a reference.
  const classic = /^(\S+)\s{2,}(\S.*)$/.exec(reference.trim());
  const details = [classic && classic[1] !== 'NONREF' ? classic[1] : '', classic?.[2].replace(/\s+/g, ' ') ?? '', supplementary]
    .filter(Boolean)
    .join(' ');
  const t = keptTransaction({
    id: bankReference?.trim() || undefined,
    bookingDate,
    valueDate,
    amount: signed,
    currency,
    description: details || reference.trim(),
    bankCode: m[6].trim(),
  });
  return { transaction: t, reference: classic ? classic[1] : reference.trim(), details };
}

/** Whether `narrative` already says `details` (an `:86:` often repeats the counterparty the `:61:` names). */
const says = (narrative: string, details: string) => narrative.replace(/\s+/g, ' ').toLowerCase().includes(details.toLowerCase());

/**
 * `:86:` free text; `?nn` structured subfields (the purpose lines `?20`–`?29` and `?60`–`?63`, then the name
 * `?32`/`?33`), with `~`, `<` or `^` as the subfield mark where a bank uses one of those after its 3-digit code;
 * or `/TAG/value` fields (`/NAME/…/REMI/…`, as ING and others write them): the name, then the remittance text.
 */
function description(info: string): string {
  let text = info.replace(/\n/g, '');
  const mark = /^\d{3}([~<^])\d\d/.exec(text)?.[1];
  if (mark) text = text.split(mark).join('?');
  if (/\?\d\d/.test(text)) {
    const sub = new Map<string, string>();
    for (const m of text.matchAll(/\?(\d\d)([^?]*)/g)) sub.set(m[1], (sub.get(m[1]) ?? '') + m[2]);
    const purpose = [...sub.entries()].filter(([k]) => (k >= '20' && k <= '29') || (k >= '60' && k <= '63')).map(([, v]) => v);
    const name = [sub.get('32'), sub.get('33')].filter(Boolean).join('');
    const booking = sub.get('00');
    return [name, ...purpose].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim() || booking?.trim() || '';
  }
  if (/\/(NAME|REMI)\//.test(text)) {
    const name = /\/NAME\/([^/]*)/.exec(text)?.[1];
    const remittance = /\/REMI\/(?:USTD\/\/|STRD\/CUR\/\/)?(.*?)(?=\/[A-Z]{4}\/|\/$|$)/.exec(text)?.[1];
    const joined = [name, remittance].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
    if (joined) return joined;
  }
  return info
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A statement being read. */
interface Reading {
  start: Field;
  reference?: string;
  account?: string;
  opening?: StatementBalance & { currency: string };
  closing?: StatementBalance & { currency: string };
  available?: StatementBalance;
  transactions: StatementTransaction[];
  /** The reference of the last `:61:`, its description when its `:86:` has none. */
  lastReference: string;
  /** What the last `:61:` says beyond its reference (a counterparty's account and name): kept before its `:86:`. */
  lastDetails: string;
  /** The transaction a `:86:` has described already: a next one continues it. */
  described?: StatementTransaction;
}

/** Every statement of the file, field by field: each `:20:` starts one. */
export function parseMt940(text: string): ParsedStatement[] {
  const statements: ParsedStatement[] = [];
  let reading: Reading | undefined;
  for (const f of fields(text)) {
    if (f.tag === '20') {
      if (reading) statements.push(finish(reading));
      reading = { start: f, transactions: [], lastReference: '', lastDetails: '' };
      continue;
    }
    if (!reading) throw new StatementError(`:${f.tag}: outside a statement (each starts with :20:)`, `line ${f.line}`);
    const r = reading;
    const where = `line ${f.line}`;
    switch (f.tag) {
      case '25':
        if (r.account !== undefined) throw new StatementError('a second :25: (account) inside one statement', where);
        r.account = f.value.replace(/\n/g, '').trim();
        break;
      case '28':
      case '28C':
        r.reference = f.value.trim();
        break;
      case '60F':
      case '60M':
        r.opening = balance(f);
        break;
      case '61': {
        if (!r.opening) throw new StatementError(':61: before the opening balance (:60F:)', where);
        if (r.closing) throw new StatementError(':61: after the closing balance (:62F:)', where);
        const { transaction: t, reference, details } = transaction(f, r.opening.currency);
        r.transactions.push(t);
        r.lastReference = reference;
        r.lastDetails = details;
        break;
      }
      case '86': {
        // The description of the transaction just before; after the closing balance, of the statement (skipped). A
        // bank that writes several :86: fields for one transaction continues its narrative: each is kept, in order.
        if (r.transactions.length === 0 || r.closing) break;
        const t = r.transactions[r.transactions.length - 1];
        const narrative = description(f.value);
        if (r.described !== t) {
          const details = says(narrative, r.lastDetails) ? '' : r.lastDetails;
          t.description = own([details, narrative].filter(Boolean).join(' ') || r.lastReference);
        } else if (narrative) t.description = own(`${t.description} ${narrative}`);
        r.described = t;
        break;
      }
      case '62F':
      case '62M':
        r.closing = balance(f);
        break;
      case '64': {
        const b = balance(f);
        r.available = { amount: b.amount, date: b.date };
        break;
      }
      default:
        // :65: forward balances, :NS: and other bank-specific fields.
        break;
    }
  }
  if (reading) statements.push(finish(reading));
  return statements;
}

function finish(r: Reading): ParsedStatement {
  const where = `the statement starting at line ${r.start.line}`;
  if (!r.account) throw new StatementError('no account (:25:)', where);
  if (!r.opening) throw new StatementError('no opening balance (:60F:)', where);
  // A statement without its closing balance is a file cut short: refused, so that a partial upload imports nothing.
  if (!r.closing) throw new StatementError('no closing balance (:62F:)', where);
  let first = r.opening.date;
  let last = r.closing.date;
  for (const t of r.transactions) {
    if (t.bookingDate < first) first = t.bookingDate;
    // Some files' closing date is not the statement's (the cmxl sample's :62F: predates its bookings).
    if (t.bookingDate > last) last = t.bookingDate;
  }
  const statement: ParsedStatement = {
    format: 'MT940',
    account: ownAccount({ identifier: r.account, ...accountParts(r.account), currency: r.opening.currency }),
    ...(r.reference ? { reference: own(r.reference) } : {}),
    from: first,
    to: last,
    opening: { amount: r.opening.amount, date: r.opening.date },
    closing: { amount: r.closing.amount, date: r.closing.date },
    ...(r.available ? { available: r.available } : {}),
    transactions: r.transactions,
    reconciles: null,
  };
  statement.reconciles = reconciles(statement);
  return statement;
}

/**
 * `50880050/0194774600888` is bank code and number; an IBAN is itself, once its check digits hold (some banks write
 * the account's currency after it: `NL12RABO0123456789 EUR`, `…EUR`).
 */
function accountParts(account: string): { iban?: string; bankCode?: string; number?: string } {
  const compact = account.replace(/\s/g, '');
  for (const candidate of [compact, compact.replace(/[A-Z]{3}$/, '')]) {
    if (/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(candidate) && ibanChecks(candidate)) return { iban: candidate };
  }
  const slash = compact.indexOf('/');
  return slash > 0 ? { bankCode: compact.slice(0, slash), number: compact.slice(slash + 1) } : { number: compact };
}

/** ISO 13616: the IBAN moved four characters round, letters as 10–35, is 1 modulo 97. */
function ibanChecks(iban: string): boolean {
  let rest = 0;
  for (const ch of iban.slice(4) + iban.slice(0, 4)) {
    const digits = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}
