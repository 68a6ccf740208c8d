import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReadContext, WriteModel } from '../connector.js';
import type { DataType } from '../../codat-model/data-types.js';
import { writeSchemaOf } from '../../codat-model/write-schema.js';
import { JournalEntrySchema } from '../../codat-model/accounting/ledger.js';
import * as api from './hledger-api.js';
import { baseCommodity, currencyCode, journalEntryRecords } from './hledger-records.js';
import { ConnectorError } from '../connector-error.js';
import { addDecimals, compareDecimals, parseDecimal } from '../../lib/decimal.js';
import { clockFor } from '../../lib/clock.js';

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
    else if (amount.replace(/[-.]/g, '').replace(/^0+/, '').length > 15)
      // More digits than a JSON number keeps exactly: hledger would be sent another amount than the one checked.
      problems.push({ itemId: `journalLines.${i}.netAmount`, message: 'netAmount has more than 15 significant digits' });
    else totals.set(line.currency ?? '', [...(totals.get(line.currency ?? '') ?? []), amount]);
  });
  // Lines naming different currencies, or some none, balance per commodity of the journal: checked against the
  // journal's commodities (checkOnPlatform), where a currency and no currency may be the same commodity.
  if (totals.size > 1) return problems;
  return [...problems, ...unbalanced(totals, (currency) => (currency ? ` in ${currency}` : ''))];
}

/** A problem for each group of amounts (by currency or commodity) that does not add up to nothing. */
function unbalanced(totals: ReadonlyMap<string, string[]>, inWhat: (key: string) => string): { itemId: string; message: string }[] {
  return [...totals].flatMap(([key, amounts]) => {
    const total = addDecimals(['0.00', ...amounts]);
    return compareDecimals(total, '0') === 0
      ? []
      : [{ itemId: 'journalLines', message: `the lines do not balance${inWhat(key)}: they add up to ${total}, not 0` }];
  });
}

/** A commodity of the journal: how many amounts are written in it, and how (hledger styles a commodity one way). */
interface JournalCommodity {
  symbol: string;
  uses: number;
  style?: api.HledgerAmountStyle;
}

/** Every commodity the journal's amounts (and their prices) are written in, with its style. */
function commoditiesOf(transactions: readonly api.HledgerTransaction[]): Map<string, JournalCommodity> {
  const out = new Map<string, JournalCommodity>();
  const see = (a: api.HledgerAmount, written: boolean) => {
    const c = out.get(a.acommodity) ?? { symbol: a.acommodity, uses: 0 };
    if (written) c.uses++;
    // The style hledger gives a posting amount is the commodity's (a price keeps the style it was written in).
    if (written || !c.style) c.style = a.astyle ?? c.style;
    out.set(a.acommodity, c);
  };
  for (const t of transactions)
    for (const p of t.tpostings)
      for (const a of p.pamount) {
        see(a, true);
        if (a.aprice) see(a.aprice.contents, false);
      }
  return out;
}

/**
 * The journal's commodity for a line: for a `currency`, the commodity written with that symbol or ISO code (`£` or
 * `GBP` for GBP; the most used when both are), for none the statements' base commodity; undefined when the journal
 * has none.
 */
function commodityFor(currency: string | undefined, commodities: Map<string, JournalCommodity>, base: string | undefined) {
  if (currency === undefined) return base === undefined ? undefined : commodities.get(base);
  const wanted = currency.trim();
  const matches = [...commodities.values()].filter((c) => c.symbol === wanted || currencyCode(c.symbol) === wanted.toUpperCase());
  return matches.sort((a, b) => b.uses - a.uses)[0];
}

/** A line as it will be written: its commodity resolved. */
interface ResolvedLine extends JournalLine {
  commodity: JournalCommodity;
}

/**
 * The lines in the journal's commodities, or the problems: a currency the journal has no commodity for (by symbol or
 * ISO code), lines that do not balance in each commodity, and a line that would break a balance assertion hledger
 * checks later in the journal (hledger would then refuse to load the file).
 */
function resolve(
  record: Record<string, unknown>,
  transactions: readonly api.HledgerTransaction[],
): { lines: ResolvedLine[]; problems: { itemId: string; message: string }[] } {
  const commodities = commoditiesOf(transactions);
  const base = baseCommodity(transactions);
  const lines = (record.journalLines ?? []) as JournalLine[];
  const problems: { itemId: string; message: string }[] = [];
  const resolved: ResolvedLine[] = [];
  const known = [...commodities.keys()].filter((c) => c !== '').map((c) => currencyCode(c) ?? c);
  lines.forEach((line) => {
    const commodity = commodityFor(line.currency ?? undefined, commodities, base);
    if (!commodity) {
      const message =
        line.currency === undefined || line.currency === null
          ? 'the journal has no amounts yet, so no base commodity: name the currency'
          : `the journal has no commodity for ${line.currency} (by symbol or ISO code); it has ${known.length > 0 ? [...new Set(known)].join(', ') : 'none'}${commodities.has('') ? ', and amounts without one (leave currency out to write in those)' : ''}`;
      if (!problems.some((p) => p.itemId === 'currency' && p.message === message)) problems.push({ itemId: 'currency', message });
    } else resolved.push({ ...line, commodity });
  });
  if (problems.length > 0) return { lines: resolved, problems };

  const totals = new Map<string, string[]>();
  for (const line of resolved)
    totals.set(line.commodity.symbol, [...(totals.get(line.commodity.symbol) ?? []), decimalOf(line.netAmount)!]);
  problems.push(...unbalanced(totals, (symbol) => ` in ${symbol || 'the unnamed commodity'}`));

  // hledger checks each balance assertion against the postings dated up to it: the entry's net movement on an
  // account, in a commodity, dated before one on that account (or above it, for an inclusive `=*`) in that commodity
  // (any, for a total `==`), would break it.
  const date = dateOf(record);
  const moves = new Map<string, { account: string; symbol: string; total: string; line: number }>();
  resolved.forEach((line, i) => {
    const account = String(line.accountRef?.id);
    const key = `${account}\u0000${line.commodity.symbol}`;
    const move = moves.get(key);
    moves.set(key, {
      account,
      symbol: line.commodity.symbol,
      total: addDecimals([move?.total ?? '0', decimalOf(line.netAmount)!]),
      line: move?.line ?? i,
    });
  });
  const later = transactions.flatMap((t) =>
    t.tpostings.filter((p) => p.pbalanceassertion && (p.pdate ?? t.tdate) > date).map((p) => ({ p, t })),
  );
  for (const move of moves.values()) {
    if (compareDecimals(move.total, '0') === 0) continue;
    const broken = later.find(({ p }) => {
      const assertion = p.pbalanceassertion!;
      const covers = p.paccount === move.account || (assertion.bainclusive && move.account.startsWith(`${p.paccount}:`));
      return covers && (assertion.batotal || assertion.baamount.acommodity === move.symbol);
    });
    if (broken) {
      problems.push({
        itemId: `journalLines.${move.line}.accountRef.id`,
        message: `${move.account} has a balance assertion on ${broken.p.pdate ?? broken.t.tdate} (${broken.t.tdescription || 'a transaction'}); a line dated ${date} before it would break it, and hledger would no longer load the journal`,
      });
    }
  }
  return { lines: resolved, problems };
}

const dateOf = (record: Record<string, unknown>) => String(record.postedOn ?? clockFor({}).now().toISOString()).slice(0, 10);

function endpointOf(ctx: ReadContext) {
  return api.endpointOf(
    ctx.settings as unknown as api.HledgerSettings,
    ctx.credentials as api.HledgerCredentials | null,
    ctx.allowPrivate,
    ctx.signal,
  );
}

/** The journal's own word on the entry, before it is accepted: its commodities, balance and assertions. */
async function checkOnPlatform(ctx: ReadContext, record: Record<string, unknown>): Promise<{ itemId: string; message: string }[]> {
  return resolve(record, await api.transactions(endpointOf(ctx))).problems;
}

/**
 * Appends the entry with a code of its own (its record id from then on: see codeOf), each line in the journal's commodity for
 * its currency and in that commodity's style (symbol, side, spacing, digit groups, decimal mark), as `hledger add`
 * writes it; then reads it back from hledger.
 *
 * hledger has no idempotency key, so the code is made from the write's own key: a run that was stopped after
 * hledger took the entry (the process shut down mid-request) is followed by one that finds the entry and does not
 * append it again.
 */
async function submit(
  ctx: ReadContext,
  write: { record: Record<string, unknown> | null; key: string },
): Promise<{ recordId: string; record: Record<string, unknown> | null }> {
  const record = write.record ?? {};
  const endpoint = endpointOf(ctx);
  const code = codeOf(write.key);
  const journal = await api.transactions(endpoint);
  // eslint-disable-next-line no-restricted-syntax -- real time: the wait for hledger's file-clock tick
  const readAt = Date.now();
  const already = journalEntryRecords(journal).find((r) => r.id === code);
  if (already) return { recordId: code, record: already.data };
  // Checked again against the journal as it is now: it may have changed since the write was accepted.
  const { lines, problems } = resolve(record, journal);
  if (problems.length > 0) throw new ConnectorError('invalid', problems.map((p) => `${p.itemId}: ${p.message}`).join('; '));
  const transaction: api.HledgerTransaction = {
    tindex: 0,
    tdate: dateOf(record),
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
  // The read just made may have reloaded the journal; an append within a file-clock tick of it would not be seen.
  // eslint-disable-next-line no-restricted-syntax -- real time: the wait for hledger's file-clock tick
  const sinceRead = Date.now() - readAt;
  if (sinceRead < FILE_CLOCK_TICK_MS) await sleep(FILE_CLOCK_TICK_MS - sinceRead, undefined, { signal: ctx.signal });
  await api.add(endpoint, postable(transaction));
  // Read back: the entry as hledger now holds it (and proof the journal still loads).
  const found = journalEntryRecords(await api.transactions(endpoint)).find((r) => r.id === code);
  if (!found) throw new ConnectorError('unavailable', `hledger accepted the journal entry ${code} but does not list it`);
  return { recordId: code, record: found.data };
}

/**
 * How long after a read of the journal an entry is appended, at least. hledger-web reloads the journal on a request only
 * when the file's modification time is after its last reload; the kernel takes file times from its coarse clock (the
 * last timer tick: up to 4 ms behind at 250 Hz, 10 ms at 100 Hz), so an entry appended within a tick of a reload gets a
 * time before it, and hledger-web would serve the journal without it until the file changed again.
 */
const FILE_CLOCK_TICK_MS = 25;

/** The entry's code: `lp-` and the first 12 hex digits of the write's key (a UUID), one code per write. */
function codeOf(key: string): string {
  const hex = key.replace(/-/g, '').toLowerCase();
  return `lp-${(/^[0-9a-f]{12}/.test(hex) ? hex : createHash('sha256').update(key).digest('hex')).slice(0, 12)}`;
}

/** The default style hledger gives a commodity it has not seen: a symbol before the number, a code after it. */
const DEFAULT_STYLE = (symbol: string): api.HledgerAmountStyle => ({
  ascommodityside: /^[A-Za-z]/.test(symbol) ? 'R' : 'L',
  ascommodityspaced: /^[A-Za-z]/.test(symbol),
  asdecimalpoint: '.',
  asdigitgroups: null,
  asprecision: 2,
});

/**
 * A checked line's amount in hledger's decimal form (mantissa and places), exactly as sent, in the journal's style
 * for its commodity; shown with at least the places the amount has, so that writing it never rounds it.
 */
function amount(line: ResolvedLine): api.HledgerAmount {
  const decimal = decimalOf(line.netAmount) as string;
  const places = decimal.includes('.') ? decimal.length - decimal.indexOf('.') - 1 : 0;
  const mantissa = Number(decimal.replace('.', ''));
  const style = line.commodity.style ?? DEFAULT_STYLE(line.commodity.symbol);
  const precision = style.asprecision;
  const shown = typeof precision === 'number' ? precision : typeof precision?.contents === 'number' ? precision.contents : 0;
  return {
    acommodity: line.commodity.symbol,
    aquantity: { decimalMantissa: mantissa, decimalPlaces: places, floatingPoint: mantissa / 10 ** places },
    aprice: null,
    astyle: { ...style, asprecision: Math.max(places, shown) },
  };
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
  [
    'journalEntries',
    { dataType: 'journalEntries', operations: ['Create'], schema, references: [], check, checkOnPlatform, submit } as WriteModel,
  ],
]);
