import { clock, two } from './fast.js';

/** Months of history before (and including) the month of `asOf`. */
export const SPAN_MONTHS = 36;

const DAY_MS = 86_400_000;

/**
 * The days a Sandbox company's data covers: from the first day of the month 35 months before `asOf`'s month
 * up to `asOf` itself (three years). Days are numbered from 0; day texts are cached (a few thousand at most).
 */
export class Calendar {
  readonly asOf: string;
  /** Number of days, `asOf` being day `days - 1`. */
  readonly days: number;
  /** Months covered; the last one (the month of `asOf`) is usually partial. */
  readonly months: number;
  /** Day number of the first day of each month, plus one past the end of the last month. */
  readonly monthStart: Int32Array;
  private readonly startMs: number;
  private readonly dayText: string[];
  private readonly localText: string[];
  /** Character codes of `YYYY-MM-DDT` per day, so date-times are built as one flat string. */
  private readonly dayCodes: Uint16Array;
  private readonly monthOfDay: Int16Array;
  private readonly epochStamps: string[] = [];

  constructor(asOf: string) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(Date.parse(`${asOf}T00:00:00Z`))) {
      throw new Error(`asOf must be a YYYY-MM-DD date, got ${JSON.stringify(asOf)}`);
    }
    this.asOf = asOf;
    const year = Number(asOf.slice(0, 4));
    const month = Number(asOf.slice(5, 7)) - 1;
    this.startMs = Date.UTC(year, month - (SPAN_MONTHS - 1), 1);
    const endMs = Date.parse(`${asOf}T00:00:00Z`);
    this.days = Math.round((endMs - this.startMs) / DAY_MS) + 1;
    this.months = SPAN_MONTHS;
    this.monthStart = new Int32Array(SPAN_MONTHS + 1);
    for (let m = 0; m <= SPAN_MONTHS; m++) {
      this.monthStart[m] = Math.round((Date.UTC(year, month - (SPAN_MONTHS - 1) + m, 1) - this.startMs) / DAY_MS);
    }
    this.dayText = new Array(this.days);
    this.localText = new Array(this.days);
    this.dayCodes = new Uint16Array(this.days * 11);
    this.monthOfDay = new Int16Array(this.days);
    for (let d = 0, m = 0; d < this.days; d++) {
      this.dayText[d] = new Date(this.startMs + d * DAY_MS).toISOString().slice(0, 10);
      this.localText[d] = `${this.dayText[d]}T00:00:00`;
      for (let i = 0; i < 10; i++) this.dayCodes[d * 11 + i] = this.dayText[d].charCodeAt(i);
      this.dayCodes[d * 11 + 10] = 84; // 'T'
      while (d >= this.monthStart[m + 1]) m++;
      this.monthOfDay[d] = m;
    }
  }

  /** `YYYY-MM-DD` of a day number (days before the span or after `asOf` are computed, not cached). */
  day(d: number): string {
    return d >= 0 && d < this.days ? this.dayText[d] : new Date(this.startMs + d * DAY_MS).toISOString().slice(0, 10);
  }

  /** Month number (0 = first month of the span) of a day in the span. */
  monthOf(d: number): number {
    return this.monthOfDay[d];
  }

  /** Last day of month `m`. */
  monthEnd(m: number): number {
    return this.monthStart[m + 1] - 1;
  }

  /** Months whose last day is before `asOf`: their month-end postings have happened. */
  get completedMonths(): number {
    let m = 0;
    while (m < this.months && this.monthEnd(m) < this.days - 1) m++;
    return m;
  }

  /** A business-local date: `YYYY-MM-DDT00:00:00`. */
  local(d: number): string {
    return d >= 0 && d < this.days ? this.localText[d] : `${this.day(d)}T00:00:00`;
  }

  /** A business-local date and time: `YYYY-MM-DDTHH:MM:SS`. */
  localTime(d: number, seconds: number): string {
    if (d < 0 || d >= this.days) return `${this.day(d)}T${clock(seconds)}`;
    const c = this.dayCodes;
    const o = d * 11;
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = seconds % 60;
    return String.fromCharCode(
      c[o],
      c[o + 1],
      c[o + 2],
      c[o + 3],
      c[o + 4],
      c[o + 5],
      c[o + 6],
      c[o + 7],
      c[o + 8],
      c[o + 9],
      c[o + 10],
      48 + Math.floor(h / 10),
      48 + (h % 10),
      58,
      48 + Math.floor(m / 10),
      48 + (m % 10),
      58,
      48 + Math.floor(s / 10),
      48 + (s % 10),
    );
  }

  /**
   * When a record of day `d` was created at the source (UTC). Epoch k ≥ 1 happens at `asOf` + k hours, so a
   * record of the `asOf` day itself is created within that day's first hour, before any later epoch.
   */
  created(d: number, seconds: number): string {
    const s = d >= this.days - 1 ? seconds % 3600 : seconds;
    return this.day(d) + 'T' + clock(s) + 'Z';
  }

  /** The instant of epoch `k` ≥ 1: `asOf` + k hours, UTC. */
  epochStamp(k: number): string {
    let stamp = this.epochStamps[k];
    if (stamp === undefined) {
      const ms = this.startMs + (this.days - 1) * DAY_MS + k * 3_600_000;
      const d = new Date(ms);
      stamp = `${d.toISOString().slice(0, 10)}T${two(d.getUTCHours())}:00:00Z`;
      this.epochStamps[k] = stamp;
    }
    return stamp;
  }

  /** The local date-time of epoch `k` (same instant, written without the zone). */
  epochLocal(k: number): string {
    return this.epochStamp(k).slice(0, 19);
  }

  /** `sourceModifiedDate` of a record created at `createdStamp` whose latest change was at epoch `changed` (0: never). */
  modified(createdStamp: string, changed: number): string {
    return changed > 0 ? this.epochStamp(changed) : createdStamp;
  }
}
