import { memoize } from './memoize.js';

/** `YYYY-MM-DD` naming a real day (not `2023-02-30`). */
export const isCalendarDate: (iso: string) => boolean = memoize((iso) => {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? Date.parse(`${iso}T00:00:00Z`) : NaN;
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === iso;
});

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` day moved by whole days, in the proleptic Gregorian calendar (JavaScript's dates'). */
export function addDays(day: string, days: number): string {
  return dayOfNumber(dayNumber(day) + days);
}

/** Whole days from `from` to `to`, both `YYYY-MM-DD` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** A `YYYY-MM-DD` day as a whole number of days since 1970-01-01 (negative before), for comparing many days fast. */
export function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
}

/** The `YYYY-MM-DD` day of a `dayNumber`. */
export function dayOfNumber(days: number): string {
  const date = new Date(days * DAY_MS);
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${date.toISOString().slice(5, 10)}`;
}

/*
 * Calendar months as whole numbers (year × 12 + month − 1), for counting months without dates: the statements'
 * month ids and periods, the enhanced reports' months.
 */

/** The month of `YYYY-MM…` (a month id or any date or date-time in it). */
export function monthIndex(isoMonth: string): number {
  return Number(isoMonth.slice(0, 4)) * 12 + Number(isoMonth.slice(5, 7)) - 1;
}

/** A month's id, `YYYY-MM` (the year in four digits, years below 1000 too). */
export function monthText(month: number): string {
  return `${String(Math.floor(month / 12)).padStart(4, '0')}-${String((month % 12) + 1).padStart(2, '0')}`;
}

/**
 * A `YYYY-MM-DD` day moved by whole calendar months (back when negative) to the same day of the month, clamped to that
 * month's last day (31 January plus one month is the last of February).
 */
export function addMonths(day: string, months: number): string {
  const month = monthIndex(day) + months;
  const last = monthEndDay(month);
  return Number(day.slice(8)) < Number(last.slice(8)) ? `${monthText(month)}-${day.slice(8)}` : last;
}

/** A month's last day, `YYYY-MM-DD`. */
export function monthEndDay(month: number): string {
  // Day 0 of the next month; setUTCFullYear, not Date.UTC, which reads years below 100 as 19xx.
  const last = new Date(0);
  last.setUTCFullYear(Math.floor((month + 1) / 12), (month + 1) % 12, 0);
  return `${String(last.getUTCFullYear()).padStart(4, '0')}-${last.toISOString().slice(5, 10)}`;
}
