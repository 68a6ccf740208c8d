import { addMonths, monthIndex } from '../lib/calendar-date.js';

const DAY_MS = 86_400_000;
const LAST_MONTH = monthIndex('9999-12');

/**
 * ISO 8601 durations as `advance` takes them (`P30D`, `PT5M`, `P1Y2M10DT2H30M`, `P2W`): years and months step the
 * calendar in UTC (clamped to the month's last day, as `P1M` from 31 January lands on the last of February), the
 * rest are exact lengths. Undefined for text that is not such a duration (a sign, a fraction other than of seconds,
 * or nothing after `P`/`T`), or a result outside the dates JavaScript holds.
 */
export function addIsoDuration(from: Date, text: string): Date | undefined {
  const match = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,9})?)S)?)?$/.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [, years, months, weeks, days, hours, minutes, seconds] = match;
  const whole = (part: string | undefined) => (part === undefined ? 0 : Number(part));
  const timeOfDay = ((from.getTime() % DAY_MS) + DAY_MS) % DAY_MS;
  const start = from.toISOString().slice(0, 10);
  const calendarMonths = whole(years) * 12 + whole(months);
  // Past year 9999 an ISO date has no four-digit year (and a clock none at all).
  if (monthIndex(start) + calendarMonths > LAST_MONTH) return undefined;
  const day = addMonths(start, calendarMonths);
  const secondsValue = seconds === undefined ? 0 : Number(seconds.replace(',', '.'));
  const at =
    Date.parse(`${day}T00:00:00.000Z`) +
    timeOfDay +
    ((whole(weeks) * 7 + whole(days)) * 24 + whole(hours)) * 3_600_000 +
    whole(minutes) * 60_000 +
    Math.round(secondsValue * 1000);
  return Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? new Date(at) : undefined;
}
