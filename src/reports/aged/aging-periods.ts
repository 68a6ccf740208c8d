import { parameterError, wholeNumber, type ParameterProblem } from '../report-requests.js';
import { addDays, daysBetween, isCalendarDate } from '../../lib/calendar-date.js';

/*
 * The periods of an aged debtors or creditors report (docs/lending/aged-reports.md): `numberOfPeriods` buckets in
 * all, newest first, each `periodLengthDays` long and counted back from the report date by issue date; bucket k
 * (k = 1 newest) holds the days in (reportDate − k·L, reportDate − (k−1)·L], the report date itself included, and the
 * last is open-ended back to 0001-01-01.
 */

export interface AgingParameters {
  /** `YYYY-MM-DD`: what is issued on or before it counts, as it stood at the end of that day. */
  reportDate: string;
  numberOfPeriods: number;
  periodLengthDays: number;
}

/** Codat's Portal defaults, which its API leaves open (codat-lending-facts.md §3.1). */
export const AGING_DEFAULTS = { numberOfPeriods: 4, periodLengthDays: 30 } as const;
/** The bounds a request is held to: anything else is a 400 naming the parameter. */
export const AGING_BOUNDS = { numberOfPeriods: { min: 1, max: 120 }, periodLengthDays: { min: 1, max: 3650 } } as const;

/** The first day an open-ended period reaches back to, as Codat's examples show it. */
export const BEGINNING_OF_TIME = '0001-01-01';

/** One period: the days after `fromDate` up to and including `toDate` (the last period: every day up to `toDate`). */
export interface AgingPeriod {
  fromDate: string;
  toDate: string;
}

/**
 * The parameters of a request (query-string values as given), with the defaults for those left out: the report date
 * today, 4 periods of 30 days. The report date may be sent as `date` (Codat's Lending SDK 4.x does). A date that is no `YYYY-MM-DD` day (or such a day with a midnight time, as Codat's SDKs
 * send a date-time), or a count out of its bounds, is a 400 naming the parameter.
 */
export function agingParameters(query: Readonly<Record<string, unknown>>, today: string): AgingParameters {
  const problems: ParameterProblem[] = [];
  // Codat's Lending SDK 4.x sends the report date as `date` (its generated client predates the name `reportDate`).
  const given = query.reportDate ?? query.date;
  const reportDate = dateParameter(given, today);
  if (reportDate === undefined)
    problems.push({ propertyName: 'reportDate', details: 'reportDate must be a date, as yyyy-MM-dd (e.g. 2024-03-31).' });
  else if (query.reportDate !== undefined && query.date !== undefined && dateParameter(query.date, today) !== reportDate)
    problems.push({ propertyName: 'reportDate', details: 'reportDate and date (its other name) name different days.' });
  const count = (name: keyof typeof AGING_BOUNDS): number => {
    const raw = query[name];
    if (raw === undefined || raw === '') return AGING_DEFAULTS[name];
    const value = wholeNumber(raw, AGING_BOUNDS[name]);
    if (value === undefined)
      problems.push({
        propertyName: name,
        details: `${name} must be a whole number from ${AGING_BOUNDS[name].min} to ${AGING_BOUNDS[name].max}.`,
      });
    return value ?? AGING_DEFAULTS[name];
  };
  const numberOfPeriods = count('numberOfPeriods');
  const periodLengthDays = count('periodLengthDays');
  if (problems.length > 0) throw parameterError(problems, 'AgingParameters');
  return { reportDate: reportDate!, numberOfPeriods, periodLengthDays };
}

/** `YYYY-MM-DD`, or that day at midnight (`…T00:00:00`, `Z` or an offset of zero allowed); absent: `fallback`. */
function dateParameter(raw: unknown, fallback: string): string | undefined {
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d{4}-\d{2}-\d{2})(?:T00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?)?$/.exec(String(raw));
  // A day before the open-ended period's own start (year 0) has no periods to count back into.
  return match && isCalendarDate(match[1]) && match[1] >= BEGINNING_OF_TIME ? match[1] : undefined;
}

/** The periods of a report, newest first. */
export function agingPeriods(parameters: AgingParameters): AgingPeriod[] {
  const { reportDate, numberOfPeriods, periodLengthDays } = parameters;
  const periods: AgingPeriod[] = [];
  for (let k = 1; k <= numberOfPeriods; k++) {
    const toDate = daysBack(reportDate, (k - 1) * periodLengthDays);
    const fromDate = k === numberOfPeriods ? BEGINNING_OF_TIME : daysBack(reportDate, k * periodLengthDays);
    periods.push({ fromDate, toDate });
  }
  return periods;
}

/**
 * The period a document dated `date` falls in (its index among `agingPeriods`, 0 the newest), or undefined for a date
 * after the report date (not yet issued as at it).
 */
export function periodIndex(date: string, parameters: AgingParameters): number | undefined {
  const days = daysBetween(date, parameters.reportDate);
  if (days < 0) return undefined;
  return Math.min(Math.floor(days / parameters.periodLengthDays), parameters.numberOfPeriods - 1);
}

/** `addDays`, reaching back no further than the open-ended period's start (0001-01-01). */
function daysBack(day: string, days: number): string {
  const moved = addDays(day, -days);
  return moved < BEGINNING_OF_TIME ? BEGINNING_OF_TIME : moved;
}
