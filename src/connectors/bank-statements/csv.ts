import { CsvError, parse } from 'csv-parse/sync';
import { CSV_PRESETS } from './csv-presets.js';
import type { CsvMapping, DateFormat } from './csv-mapping.js';
import { checkMapping } from './csv-mapping-check.js';
import { dateOf } from './csv-dates.js';
import { statementOf } from './csv-statement.js';
import { negateDecimal, parseDecimal } from '../../lib/decimal.js';
import { firstLinesOf, keptTransaction, own, StatementError, type ParsedStatement, type StatementTransaction } from './statement.js';

/**
 * CSV bank exports, read with csv-parse through a column mapping: the file says nothing about which column is
 * what. A mapping names the columns; a preset is a mapping for one bank's export, and a file whose header is
 * exactly a preset's needs none. See docs/connectors/bank-statements.md.
 */
export type { CsvMapping, DateFormat } from './csv-mapping.js';

function delimiterOf(firstLine: string): string {
  const counts = [',', ';', '\t', '|'].map((d) => [d, firstLine.split(d).length - 1] as const);
  return counts.sort((a, b) => b[1] - a[1])[0][0];
}

/** The preset whose header this file has exactly, if any. */
function presetForHeader(header: readonly string[]): string | undefined {
  const clean = header.map((h) => h.trim());
  return Object.entries(CSV_PRESETS).find(([, p]) => p.header.length === clean.length && p.header.every((h, i) => h === clean[i]))?.[0];
}

/** How far down a header row is looked for (bank preambles are a few lines). */
const HEADER_SEARCH_LINES = 40;

/**
 * The description from its cells: joined by a space, runs of white space made one. It keeps nothing else alive:
 * a cell is decoded on its own by csv-parse (trimmed, at most a slice of that), and join makes a flat string; only
 * a text white space was replaced in is copied (a replacement is a tree of the pieces around it, see own).
 */
function descriptionOf(cells: string[]): string {
  const joined = cells.length === 1 ? cells[0] : cells.join(' ');
  return /[^\S ]| {2}/.test(joined) ? own(joined.replace(/\s+/g, ' ')) : joined;
}

/** The text up to the end of its `count`th line (the header is looked for there, not in the whole file). */
function linesOf(text: string, count: number): string {
  let end = -1;
  for (let n = 0; n < count; n++) {
    end = text.indexOf('\n', end + 1);
    if (end < 0) return text;
  }
  return text.slice(0, end + 1);
}

/**
 * Reads a CSV export; without a mapping its header must be a preset's. Rows become transactions as they are read.
 * `head` is the start of the file's text (where the delimiter and the header are looked for); `input` the whole
 * file, as text or as UTF-8 bytes. A plain string is both.
 */
export function parseCsv(
  source: string | { head: string; input: string | Buffer },
  given?: CsvMapping | { preset: string },
): ParsedStatement[] {
  const { head: text, input } = typeof source === 'string' ? { head: source, input: source } : source;
  let mapping: CsvMapping | undefined;
  if (given && typeof given === 'object' && 'preset' in given) {
    mapping = typeof given.preset === 'string' && Object.hasOwn(CSV_PRESETS, given.preset) ? CSV_PRESETS[given.preset].mapping : undefined;
    if (!mapping)
      throw new StatementError(
        `${JSON.stringify(given.preset)} is not a CSV preset (${Object.keys(CSV_PRESETS).join(', ')})`,
        'mapping.preset',
      );
  } else if (given !== undefined) mapping = checkMapping(given);
  // The delimiter the first lines use most (a preamble line alone may have none).
  const delimiter = mapping?.delimiter ?? delimiterOf(firstLinesOf(text));
  const options = { delimiter, relax_column_count: true, skip_empty_lines: true, bom: true, trim: false } as const;
  const read = <T>(from: string | Buffer, extra: Record<string, unknown>): T[] => {
    try {
      return parse(from, { ...options, ...extra }) as T[];
    } catch (err) {
      // csv-parse's own refusals of the text; anything else (a StatementError of a row, a fault here) as it is.
      if (!(err instanceof CsvError)) throw err;
      const lines = (err as CsvError & { lines?: number }).lines;
      throw new StatementError(`not readable CSV: ${err.message}`, lines ? `line ${lines}` : undefined);
    }
  };
  // The header is the first row, or, after a bank's preamble lines (account, period…), the first of the first
  // rows that names the mapping's date column or is a preset's header.
  const head = read<string[]>(linesOf(text, HEADER_SEARCH_LINES), {
    to_line: HEADER_SEARCH_LINES,
    relax_quotes: true,
    skip_records_with_error: true,
    info: true,
  }).map((r) => r as unknown as { record: string[]; info: { lines: number } });
  const isHeader = (cells: string[]) => (mapping ? cells.includes(mapping.date.column) : presetForHeader(cells) !== undefined);
  const found = head.find((r) => isHeader(r.record.map((c) => c.trim())));
  const headerLine = found?.info.lines ?? 1;
  const header = (found?.record ?? head[0]?.record ?? []).map((h) => h.trim());
  if (!mapping) {
    const preset = presetForHeader(header);
    if (!preset) {
      throw new StatementError(
        `the header matches no preset (${Object.keys(CSV_PRESETS).join(', ')}); send a mapping naming the date column and format, the amount (or debit and credit) columns, the decimal separator and the description columns`,
        'mapping',
      );
    }
    mapping = CSV_PRESETS[preset].mapping;
  }
  const m = mapping;
  const column = (name: string | undefined, what: string): number => {
    if (name === undefined) return -1;
    const index = header.indexOf(name);
    if (index < 0) throw new StatementError(`the ${what} column ${JSON.stringify(name)} is not in the header`, `mapping.${what}`);
    return index;
  };
  if (m.amount === undefined && (m.debit === undefined || m.credit === undefined))
    throw new StatementError('the mapping needs an amount column, or debit and credit columns', 'mapping.amount');
  const c = {
    date: column(m.date?.column, 'date'),
    valueDate: column(m.valueDate?.column, 'valueDate'),
    amount: column(m.amount, 'amount'),
    debit: column(m.debit, 'debit'),
    credit: column(m.credit, 'credit'),
    balance: column(m.balance, 'balance'),
    account: column(m.account?.column, 'account'),
    currency: column(m.currency?.column, 'currency'),
    id: column(m.id, 'id'),
    code: column(m.code, 'code'),
    description: (m.description ?? []).map((d) => column(d, 'description')),
    direction: -1,
  };
  if (c.date < 0) throw new StatementError('the mapping needs the date column and its format', 'mapping.date');
  const directionIndex = m.direction ? column(m.direction.column, 'direction') : -1;
  Object.assign(c, { direction: directionIndex });
  const directionDebits = new Set((m.direction?.debit ?? []).map((v) => v.trim().toLowerCase()));
  const ruleOf = (what: string) => (r: { column: string; values: string[] }) => ({
    index: column(r.column, what),
    values: new Set(r.values.map((v) => v.trim().toLowerCase())),
  });
  const filters = { skip: (m.skip ?? []).map(ruleOf('skip')), only: (m.only ?? []).map(ruleOf('only')) };
  const money = (value: string, where: string) => {
    const parsed = parseDecimal(value, m.decimal, m.thousands ?? []);
    if (parsed === undefined)
      throw new StatementError(`${JSON.stringify(value)} is not an amount (decimal ${JSON.stringify(m.decimal)})`, where);
    return parsed;
  };

  // Per account: its transactions and the line each came from.
  const accounts = new Map<string, { transactions: StatementTransaction[]; lines: number[] }>();
  // One cache per column: the booking and value dates may be written in different formats.
  const dates = new Map<string, string>();
  const valueDates = new Map<string, string>();
  // Every mapped column but the description's: a row with all of them empty continues the one before.
  const others = [c.date, c.valueDate, c.amount, c.debit, c.credit, c.balance, c.account, c.currency, c.id, c.code, c.direction].filter(
    (i) => i >= 0,
  );
  /** The last row read as a transaction: a continuation row adds to its description. */
  let last: { entry: { transactions: StatementTransaction[] }; index: number } | undefined;
  read<never>(input, {
    from_line: headerLine + 1,
    info: false,
    // Lines may end CR CR LF (a CRLF file saved again on Windows): one line end, not two. A quote out of place in
    // a value the bank did not quote (a broken export) is read as part of it.
    record_delimiter: ['\r\r\n', '\r\n', '\n', '\r'],
    relax_quotes: true,
    on_record: (row: string[], context: { lines: number }) => {
      const line = context.lines;
      const where = `line ${line}`;
      // A quote the bank left unbalanced (`NL77RABO0311467415",`) is no part of the value.
      const cell = (i: number) => {
        const value = i >= 0 ? (row[i] ?? '').trim() : '';
        return value.includes('"') ? value.replace(/^"(?=[^"]*$)|(?<=^[^"]*)"$/, '') : value;
      };
      // The header again (some exports repeat it at the end), and the rows the mapping leaves out.
      if (row.length === header.length && row.every((v, i) => v.trim() === header[i])) return null;
      if (filters.skip.some((f) => f.values.has(cell(f.index).toLowerCase()))) return null;
      if (filters.only.some((f) => !f.values.has(cell(f.index).toLowerCase()))) return null;
      // A row with nothing but description text continues the row before it (exports that wrap a long description
      // onto a second row); a footer with a date, an amount or a balance in it is no such row.
      if (last && others.every((i) => !cell(i))) {
        const more = descriptionOf(c.description.map(cell).filter(Boolean));
        const previous = last.entry.transactions[last.index];
        if (more)
          last.entry.transactions[last.index] = keptTransaction({ ...previous, description: `${previous.description} ${more}`.trim() });
        return null;
      }
      let amount: string;
      if (c.amount >= 0) amount = money(cell(c.amount), where);
      else {
        // A zero in the column not used (`0.00`) counts as empty.
        const given = (i: number) => (cell(i) && !/^[-+]?(?:0+(?:[.,]0*)?|[.,]0+)$/.test(cell(i)) ? cell(i) : '');
        const debit = given(c.debit);
        const credit = given(c.credit);
        if (debit && credit) throw new StatementError('a row with both a debit and a credit', where);
        if (!debit && !credit && !cell(c.debit) && !cell(c.credit))
          throw new StatementError('a row with neither a debit nor a credit', where);
        amount = debit ? negateDecimal(money(debit, where).replace('-', '')) : money(credit || '0', where).replace('-', '');
      }
      if (c.direction >= 0) {
        const magnitude = amount.replace('-', '');
        amount = directionDebits.has(cell(c.direction).toLowerCase()) ? negateDecimal(magnitude) : magnitude;
      }
      // Card exports write money out unsigned and money in (a payment, a refund) with an explicit plus (`+ £1,100.00`):
      // flipping every sign but that one's reads both.
      if (m.negate && !(c.amount >= 0 && /^\+/.test(cell(c.amount)))) amount = negateDecimal(amount);
      const currency = (cell(c.currency) || m.currency?.value)?.toUpperCase();
      if (!currency) throw new StatementError('no currency: map a currency column or give one value', 'mapping.currency');
      const balance = cell(c.balance);
      const t = keptTransaction(
        {
          id: cell(c.id) || undefined,
          bookingDate: dateOf(cell(c.date), m.date.format, where, dates),
          valueDate:
            c.valueDate >= 0 && cell(c.valueDate)
              ? dateOf(cell(c.valueDate), (m.valueDate as { format: DateFormat }).format, where, valueDates)
              : undefined,
          amount,
          currency,
          description: descriptionOf(c.description.map(cell).filter(Boolean)),
          bankCode: cell(c.code) || undefined,
          balance: balance ? money(balance, where) : undefined,
        },
        { descriptionIsOwn: true },
      );
      const account = cell(c.account) || m.account?.value || 'CSV';
      let entry = accounts.get(account);
      if (!entry) accounts.set(account, (entry = { transactions: [], lines: [] }));
      entry.transactions.push(t);
      entry.lines.push(line);
      last = { entry, index: entry.transactions.length - 1 };
      return null;
    },
  });
  if (accounts.size === 0) throw new StatementError('the CSV has a header but no rows', 'line 2');
  return [...accounts].map(([account, { transactions, lines }]) => statementOf(account, transactions, lines));
}
