/**
 * Days as integers (days since 1970-01-01, UTC) and the strings the records need, prepared once per company
 * over a window around the data span, so records format dates by table look-up instead of `Date`.
 */

const DAY_MS = 86_400_000;

export function dayOf(ymd: string): number {
  return Math.floor(Date.parse(`${ymd}T00:00:00Z`) / DAY_MS);
}

export function ymdOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** First day of the month `monthsAhead` months after the month containing `day`. */
export function monthStartAfter(day: number, monthsAhead: number): number {
  const d = new Date(day * DAY_MS);
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + monthsAhead, 1) / DAY_MS);
}

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));

export class Calendar {
  /** Day of index 0 in the tables. */
  readonly first: number;
  readonly last: number;
  /** First day of each report month; `monthStart[months]` is the day after the last month. */
  readonly monthStart: Int32Array;
  readonly months: number;
  private readonly ymds: string[];
  private readonly locals: string[];
  private readonly monthIdx: Int16Array;
  private readonly stamps: (string | undefined)[] = [];

  /** Report months run from `startDay`'s month through `asOfDay`'s month; tables cover `pad` days either side. */
  constructor(startDay: number, asOfDay: number, pad: number) {
    const monthStarts: number[] = [];
    for (let m = 0; ; m++) {
      const s = monthStartAfter(startDay, m);
      monthStarts.push(s);
      if (s > asOfDay) break;
    }
    this.monthStart = Int32Array.from(monthStarts);
    this.months = monthStarts.length - 1;
    this.first = startDay - pad;
    this.last = asOfDay + pad;
    const n = this.last - this.first + 1;
    this.ymds = new Array<string>(n);
    this.locals = new Array<string>(n);
    this.monthIdx = new Int16Array(n);
    let m = 0;
    for (let k = 0; k < n; k++) {
      const day = this.first + k;
      const ymd = ymdOf(day);
      this.ymds[k] = ymd;
      this.locals[k] = `${ymd}T00:00:00`;
      while (m < this.months && day >= this.monthStart[m + 1]) m++;
      this.monthIdx[k] = day < this.monthStart[0] ? -1 : day >= this.monthStart[this.months] ? this.months : m;
    }
  }

  ymd(day: number): string {
    const k = day - this.first;
    return k >= 0 && k < this.ymds.length ? this.ymds[k] : ymdOf(day);
  }

  /** Business-local date-time, `YYYY-MM-DDT00:00:00`. */
  local(day: number): string {
    const k = day - this.first;
    return k >= 0 && k < this.locals.length ? this.locals[k] : `${ymdOf(day)}T00:00:00`;
  }

  /** An instant on `day` at `minuteOfDay` (UTC), `YYYY-MM-DDTHH:MM:SSZ`. */
  instant(day: number, minuteOfDay: number, second = 0): string {
    return `${this.ymd(day)}T${TWO[(minuteOfDay / 60) | 0]}:${TWO[minuteOfDay % 60]}:${TWO[second]}Z`;
  }

  /**
   * One of 64 working-hours instants on `day` (08:00 to 17:27 UTC), chosen by `salt`; the strings are made
   * once and reused, as most records carry one.
   */
  stamp(day: number, salt: number): string {
    const slot = salt & 63;
    const k = day - this.first;
    if (k < 0 || k >= this.ymds.length) return this.instant(day, 480 + slot * 9, (slot * 7) % 60);
    const at = k * 64 + slot;
    return (this.stamps[at] ??= this.instant(day, 480 + slot * 9, (slot * 7) % 60));
  }

  /** Report month of `day`: -1 before the first month, `months` after the last. */
  month(day: number): number {
    const k = day - this.first;
    if (k >= 0 && k < this.monthIdx.length) return this.monthIdx[k];
    return day < this.monthStart[0] ? -1 : this.months;
  }

  /** `YYYY-MM` of report month `m`. */
  monthId(m: number): string {
    return this.ymd(this.monthStart[m]).slice(0, 7);
  }
}
