import { randomUUID } from 'node:crypto';
import type { ReadContext, WriteModel } from '../connector.js';
import type { DataType } from '../data-types.js';
import { writeSchemaOf } from '../write-schema.js';
import { JournalEntrySchema } from '../sandbox/accounting/schemas/ledger.js';
import * as api from './hledger-api.js';
import { journalEntryRecords } from './hledger-records.js';
import { ConnectorError } from '../connector-error.js';
import { addDecimals, compareDecimals, parseDecimal } from '../../lib/decimal.js';

interface JournalLine {
  description?: string;
  netAmount: number;
  currency?: string;
  accountRef?: { id?: string; name?: string };
}

/** A line's amount as an exact decimal (the JSON number as written), or undefined for one in exponent form. */
const decimalOf = (n: number) => parseDecimal(String(n));

/** Text hledger writes into the journal as is: a line break, a tab or a double space would change what it reads back. */
const UNSAFE_TEXT = /[\u0000-\u001f\u007f]|  /;

/**
 * What hledger-web would write into the journal file but not read back, refused before it reaches hledger-web:
 * hledger-web 1.25 accepts an unbalanced transaction (or an account name with a line break) with 201 and writes it
 * into the journal file, which then no longer loads. So: at least two lines, each with an account name hledger can
 * read back (no line breaks, no double spaces, not in the parentheses or brackets of a virtual posting) and a
 * plain decimal amount, balancing exactly in each currency.
 */
function check(record: Record<string, unknown>): { itemId: string; message: string }[] {
  const lines = (record.journalLines ?? []) as JournalLine[];
  const problems: { itemId: string; message: string }[] = [];
  if (lines.length < 2) problems.push({ itemId: 'journalLines', message: 'a journal entry needs at least two lines' });
  if (typeof record.description === 'string' && /[\u0000-\u001f\u007f]/.test(record.description)) {
    problems.push({ itemId: 'description', message: 'description must be one line (no line breaks or control characters)' });
  }
  const totals = new Map<string, string[]>();
  lines.forEach((line, i) => {
    const account = line.accountRef?.id;
    if (!account)
      problems.push({
        itemId: `journalLines.${i}.accountRef.id`,
        message: 'every line needs accountRef.id (an hledger account name, e.g. assets:bank:checking)',
      });
    else if (UNSAFE_TEXT.test(account) || account !== account.trim() || /^[([]|[)\]]$/.test(account)) {
      problems.push({
        itemId: `journalLines.${i}.accountRef.id`,
        message:
          'an hledger account name has no line breaks, tabs or double spaces, no spaces at either end, and no enclosing parentheses or brackets',
      });
    }
    if (line.currency !== undefined && !/^[^\s\d.,;"'-]+$/.test(line.currency)) {
      problems.push({
        itemId: `journalLines.${i}.currency`,
        message: 'currency must be a commodity symbol hledger reads back (no spaces, digits or punctuation)',
      });
    }
    const amount = decimalOf(line.netAmount);
    if (amount === undefined) problems.push({ itemId: `journalLines.${i}.netAmount`, message: 'netAmount must be a plain decimal number' });
    else totals.set(line.currency ?? '', [...(totals.get(line.currency ?? '') ?? []), amount]);
  });
  for (const [currency, amounts] of totals) {
    const total = addDecimals(['0.00', ...amounts]);
    if (compareDecimals(total, '0') !== 0) {
      problems.push({
        itemId: 'journalLines',
        message: `the lines do not balance${currency ? ` in ${currency}` : ''}: they add up to ${total}, not 0`,
      });
    }
  }
  return problems;
}

/** Appends the entry with a code of its own (its record id from then on) and reads it back from hledger. */
async function submit(
  ctx: ReadContext,
  write: { record: Record<string, unknown> | null },
): Promise<{ recordId: string; record: Record<string, unknown> | null }> {
  const record = write.record ?? {};
  const endpoint = api.endpointOf(
    ctx.settings as unknown as api.HledgerSettings,
    ctx.credentials as api.HledgerCredentials | null,
    ctx.allowPrivate,
    ctx.signal,
  );
  const code = `lp-${randomUUID().slice(0, 8)}`;
  const date = String(record.postedOn ?? new Date().toISOString()).slice(0, 10);
  const lines = (record.journalLines ?? []) as JournalLine[];
  const transaction: api.HledgerTransaction = {
    tindex: 0,
    tdate: date,
    tdate2: null,
    tcode: code,
    tdescription: String(record.description ?? ''),
    tcomment: '',
    tstatus: 'Unmarked',
    tpostings: lines.map((line) => ({
      paccount: String(line.accountRef?.id),
      pcomment: line.description ?? '',
      ptags: [],
      ptype: 'RegularPosting',
      pamount: [amount(line)],
    })),
    tsourcepos: [],
  } as api.HledgerTransaction;
  await api.add(endpoint, postable(transaction));
  // Read back: the entry as hledger now holds it (and proof the journal still loads).
  const found = journalEntryRecords(await api.transactions(endpoint)).find((r) => r.id === code);
  if (!found) throw new ConnectorError('unavailable', `hledger accepted the journal entry ${code} but does not list it`);
  return { recordId: code, record: found.data };
}

/** A checked line's amount in hledger's decimal form (mantissa and places), exactly as sent. */
function amount(line: JournalLine): api.HledgerAmount {
  const decimal = decimalOf(line.netAmount) as string;
  const places = decimal.includes('.') ? decimal.length - decimal.indexOf('.') - 1 : 0;
  const mantissa = Number(decimal.replace('.', ''));
  return {
    acommodity: line.currency ?? '',
    aquantity: { decimalMantissa: mantissa, decimalPlaces: places, floatingPoint: mantissa / 10 ** places },
    // hledger-web parses the full Amount; these are its defaults for a plain amount.
    ...({
      aprice: null,
      astyle: { ascommodityside: 'R', ascommodityspaced: true, asdecimalpoint: '.', asdigitgroups: null, asprecision: Math.max(places, 2) },
    } as object),
  } as api.HledgerAmount;
}

/** The transaction in the full shape hledger-web's `PUT /add` parses (it rejects missing fields). */
function postable(t: api.HledgerTransaction): api.HledgerTransaction {
  return {
    ...t,
    tprecedingcomment: '',
    ttags: [],
    tsourcepos: [
      { sourceName: '', sourceLine: 1, sourceColumn: 1 },
      { sourceName: '', sourceLine: 1, sourceColumn: 1 },
    ],
    tpostings: t.tpostings.map((p) => ({
      ...p,
      pdate: null,
      pdate2: null,
      pstatus: 'Unmarked',
      pbalanceassertion: null,
      ptransaction_: '0',
      poriginal: null,
    })),
  } as unknown as api.HledgerTransaction;
}

const schema = writeSchemaOf(JournalEntrySchema);
export const journalEntryWrites: ReadonlyMap<DataType, WriteModel> = new Map([
  ['journalEntries', { dataType: 'journalEntries', operations: ['Create'], schema, references: [], check, submit } as WriteModel],
]);
