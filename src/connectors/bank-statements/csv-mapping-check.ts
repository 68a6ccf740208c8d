import { DATE_PATTERNS } from './csv-dates.js';
import type { CsvMapping, DateFormat } from './csv-mapping.js';
import { StatementError } from './statement.js';

/** The fields a mapping may have: any other is refused, so that a misspelt one is not silently ignored. */
const MAPPING_FIELDS = [
  'delimiter',
  'date',
  'valueDate',
  'amount',
  'debit',
  'credit',
  'decimal',
  'thousands',
  'description',
  'balance',
  'account',
  'currency',
  'id',
  'code',
  'negate',
  'direction',
  'skip',
  'only',
];

/**
 * A mapping as sent (JSON of any shape) checked field by field: a StatementError names the first field that is
 * wrong (`mapping.date.format`). `decimal` defaults to `.`; `description` may be one column or a list.
 */
export function checkMapping(given: unknown): CsvMapping {
  const fail = (field: string, message: string): never => {
    throw new StatementError(message, `mapping.${field}`);
  };
  if (!given || typeof given !== 'object' || Array.isArray(given)) fail('', 'the mapping must be an object');
  const m = given as Record<string, unknown>;
  for (const key of Object.keys(m))
    if (!MAPPING_FIELDS.includes(key)) fail(key, `${key} is not a mapping field (${MAPPING_FIELDS.join(', ')})`);
  const column = (field: string, value: unknown): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value === '') fail(field, `${field} must be a column name`);
    return value as string;
  };
  const dated = (field: string, value: unknown): { column: string; format: DateFormat } | undefined => {
    if (value === undefined || value === null) return undefined;
    const d = value as Record<string, unknown>;
    if (typeof d !== 'object' || typeof d.column !== 'string' || d.column === '')
      fail(field, `${field} must be {"column": "<name>", "format": "<date format>"}`);
    if (typeof d.format !== 'string' || !Object.hasOwn(DATE_PATTERNS, d.format))
      fail(`${field}.format`, `${field}.format must be one of ${Object.keys(DATE_PATTERNS).join(', ')}`);
    return { column: d.column as string, format: d.format as DateFormat };
  };
  const where = (field: string, value: unknown): { column?: string; value?: string } | undefined => {
    if (value === undefined || value === null) return undefined;
    const w = value as Record<string, unknown>;
    const ok = typeof w === 'object' && !Array.isArray(w) && (typeof w.column === 'string' || typeof w.value === 'string');
    if (!ok) fail(field, `${field} must be {"column": "<name>"} or {"value": "<one value for the whole file>"}`);
    return { ...(typeof w.column === 'string' ? { column: w.column } : {}), ...(typeof w.value === 'string' ? { value: w.value } : {}) };
  };
  const date = dated('date', m.date);
  if (!date) return fail('date', 'the mapping needs the date column and its format');
  if (m.decimal !== undefined && m.decimal !== '.' && m.decimal !== ',') fail('decimal', 'decimal must be "." or ","');
  if (m.delimiter !== undefined && ![',', ';', '\t', '|'].includes(m.delimiter as string))
    fail('delimiter', 'delimiter must be ",", ";", "|" or a tab');
  const decimalMark = m.decimal ?? '.';
  if (
    m.thousands !== undefined &&
    !(
      Array.isArray(m.thousands) &&
      m.thousands.every((t) => typeof t === 'string' && t.length === 1 && !/[\d+-]/.test(t) && t !== decimalMark)
    )
  ) {
    fail('thousands', 'thousands must be a list of single characters other than digits, signs and the decimal separator, e.g. [","]');
  }
  const description = m.description === undefined ? [] : typeof m.description === 'string' ? [m.description] : m.description;
  if (!Array.isArray(description) || !description.every((d) => typeof d === 'string' && d !== ''))
    fail('description', 'description must be a column name or a list of them');
  if (m.negate !== undefined && typeof m.negate !== 'boolean') fail('negate', 'negate must be true or false');
  const direction = m.direction as { column?: unknown; debit?: unknown } | undefined;
  if (
    direction !== undefined &&
    (typeof direction !== 'object' ||
      direction === null ||
      typeof direction.column !== 'string' ||
      !Array.isArray(direction.debit) ||
      !direction.debit.every((v) => typeof v === 'string'))
  ) {
    fail('direction', 'direction must be {"column": "<name>", "debit": ["<value meaning money out>", …]}');
  }
  const rules = (field: string, value: unknown) => {
    if (value === undefined) return undefined;
    const ok =
      Array.isArray(value) &&
      value.every(
        (r) =>
          r &&
          typeof r === 'object' &&
          typeof r.column === 'string' &&
          Array.isArray(r.values) &&
          r.values.every((v: unknown) => typeof v === 'string'),
      );
    if (!ok) fail(field, `${field} must be a list of {"column": "<name>", "values": ["…", …]}`);
    return value as { column: string; values: string[] }[];
  };
  return {
    ...(m.delimiter !== undefined ? { delimiter: m.delimiter as string } : {}),
    ...(m.negate ? { negate: true } : {}),
    ...(direction ? { direction: direction as { column: string; debit: string[] } } : {}),
    ...(rules('skip', m.skip) ? { skip: rules('skip', m.skip) } : {}),
    ...(rules('only', m.only) ? { only: rules('only', m.only) } : {}),
    date,
    ...(dated('valueDate', m.valueDate) ? { valueDate: dated('valueDate', m.valueDate) } : {}),
    amount: column('amount', m.amount),
    debit: column('debit', m.debit),
    credit: column('credit', m.credit),
    decimal: (m.decimal as '.' | ',' | undefined) ?? '.',
    ...(m.thousands !== undefined ? { thousands: m.thousands as string[] } : {}),
    description: description as string[],
    balance: column('balance', m.balance),
    id: column('id', m.id),
    code: column('code', m.code),
    account: where('account', m.account),
    currency: where('currency', m.currency),
  };
}
