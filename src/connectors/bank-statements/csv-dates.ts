import { isCalendarDate } from '../../lib/calendar-date.js';
import type { DateFormat } from './csv-mapping.js';
import { own, StatementError } from './statement.js';

/** Two-digit years: 80–99 are 19xx, the rest 20xx (as in MT940). */
const year = (y: string) => (y.length === 4 ? y : `${Number(y) >= 80 ? '19' : '20'}${y}`);
const iso = (y: string, m: string, d: string) => `${year(y)}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
/** A time after the date (`2024-01-05 10:22:00`, `05.01.2024T10:22`) is allowed and dropped. */
const TIME = '(?:,?[ T].*)?$';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** `Jan` or `January` (English) as `01`; anything else as `00`, which is no date. */
const month = (name: string) => String(MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1).padStart(2, '0');

/** The date formats a mapping may name (see csv-mapping.ts), each a pattern of a cell and its `YYYY-MM-DD`. */
export const DATE_PATTERNS: Record<DateFormat, [RegExp, (m: RegExpExecArray) => string]> = {
  'YYYY-MM-DD': [new RegExp(`^(\\d{4})-(\\d{1,2})-(\\d{1,2})${TIME}`), (m) => iso(m[1], m[2], m[3])],
  'YYYY/MM/DD': [new RegExp(`^(\\d{4})/(\\d{1,2})/(\\d{1,2})${TIME}`), (m) => iso(m[1], m[2], m[3])],
  YYYYMMDD: [/^(\d{4})(\d{2})(\d{2})$/, (m) => iso(m[1], m[2], m[3])],
  'DD.MM.YYYY': [new RegExp(`^(\\d{1,2})\\.(\\d{1,2})\\.(\\d{4})${TIME}`), (m) => iso(m[3], m[2], m[1])],
  // Hungarian and other exports end the date with a dot (`2019.04.19.`).
  'YYYY.MM.DD': [new RegExp(`^(\\d{4})\\.(\\d{1,2})\\.(\\d{1,2})\\.?${TIME}`), (m) => iso(m[1], m[2], m[3])],
  'DD/MM/YYYY': [new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{4})${TIME}`), (m) => iso(m[3], m[2], m[1])],
  'DD-MM-YYYY': [new RegExp(`^(\\d{1,2})-(\\d{1,2})-(\\d{4})${TIME}`), (m) => iso(m[3], m[2], m[1])],
  'MM/DD/YYYY': [new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{4})${TIME}`), (m) => iso(m[3], m[1], m[2])],
  'MM-DD-YYYY': [new RegExp(`^(\\d{1,2})-(\\d{1,2})-(\\d{4})${TIME}`), (m) => iso(m[3], m[1], m[2])],
  'DD.MM.YY': [new RegExp(`^(\\d{1,2})\\.(\\d{1,2})\\.(\\d{2})${TIME}`), (m) => iso(m[3], m[2], m[1])],
  'DD/MM/YY': [new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{2})${TIME}`), (m) => iso(m[3], m[2], m[1])],
  'MM/DD/YY': [new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{2})${TIME}`), (m) => iso(m[3], m[1], m[2])],
  'DD MMM YYYY': [new RegExp(`^(\\d{1,2}) ([A-Za-z]{3,9})\\.? (\\d{4})${TIME}`), (m) => iso(m[3], month(m[2]), m[1])],
  'DD-MMM-YY': [new RegExp(`^(\\d{1,2})-([A-Za-z]{3,9})-(\\d{2})${TIME}`), (m) => iso(m[3], month(m[2]), m[1])],
  'DD-MMM-YYYY': [new RegExp(`^(\\d{1,2})-([A-Za-z]{3,9})-(\\d{4})${TIME}`), (m) => iso(m[3], month(m[2]), m[1])],
};

/**
 * `YYYY-MM-DD` from a cell. A file has few distinct dates: each is made once and shared by every row of that day
 * (through `cache`), instead of a string of its own per row.
 */
export function dateOf(value: string, format: DateFormat, where: string, cache?: Map<string, string>): string {
  const v = value.trim();
  const known = cache?.get(v);
  if (known !== undefined) return known;
  const [re, build] = DATE_PATTERNS[format];
  const m = re.exec(v);
  const iso = m ? build(m) : '';
  if (!m || !isCalendarDate(iso)) {
    throw new StatementError(`${JSON.stringify(v)} is not a date in ${format}`, where);
  }
  // Flattened: the template's pieces are not kept alive by the cached value.
  cache?.set(v, own(iso));
  return iso;
}
