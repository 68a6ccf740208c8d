import { memoize } from './memoize.js';

/** `YYYY-MM-DD` naming a real day (not `2023-02-30`). */
export const isCalendarDate: (iso: string) => boolean = memoize((iso) => {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? Date.parse(`${iso}T00:00:00Z`) : NaN;
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === iso;
});
