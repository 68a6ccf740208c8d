/**
 * Values as people read them in the portal's tables: dates without the `T00:00:00` of the wire format, amounts with
 * thousands separators. One locale (en-GB, day month year) for every page, so a reader can compare rows; the JSON
 * of each record keeps the exact values.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * `2022-12-06T00:00:00` → `6 Dec 2022`; a time other than midnight is kept (`2 Dec 2023, 20:35`), with `UTC` when the
 * value says so. Local dates (Codat's dates carry no zone) are shown as written, never shifted to another zone. With
 * `time: 'always'` (an instant, such as when a sync ran), midnight is shown too.
 */
export function formatDate(value: unknown, options: { time?: 'always' } = {}): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DATE_TIME.exec(value.trim());
  if (!m) return undefined;
  const [, year, month, day, hour, minute, , zone] = m;
  const monthName = MONTHS[Number(month) - 1];
  if (!monthName) return undefined;
  const date = `${Number(day)} ${monthName} ${year}`;
  if (hour === undefined || (hour === '00' && minute === '00' && options.time !== 'always')) return date;
  const utc = zone === 'Z' || zone === '+00:00' || zone === '+0000' ? ' UTC' : zone ? ` ${zone}` : '';
  return `${date}, ${hour}:${minute}${utc}`;
}

/** `1234.5` → `1,234.50`: two decimals at least (money), more where the value has them. */
export function formatAmount(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return value.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
}

/** A number that is not money (a rate, a count): thousands separators, its own decimals. */
export function formatNumber(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return value.toLocaleString('en-GB', { maximumFractionDigits: 6 });
}

export type CellKind = 'text' | 'date' | 'amount' | 'number';

/** A table cell's text (not yet escaped): formatted by kind, anything else as written; empty for no value. */
export function cellText(value: unknown, kind: CellKind = 'text'): string {
  if (value === null || value === undefined) return '';
  const formatted =
    kind === 'date' ? formatDate(value) : kind === 'amount' ? formatAmount(value) : kind === 'number' ? formatNumber(value) : undefined;
  if (formatted !== undefined) return formatted;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
