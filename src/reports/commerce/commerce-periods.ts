import { parameterError, wholeNumber, type ParameterProblem } from '../report-requests.js';
import { reportDay } from '../enhanced/enhanced-parameters.js';
import { addMonths, dayNumber, dayOfNumber } from '../../lib/calendar-date.js';

/** The first day a period may start on: dates are written with four-digit years. */
const FIRST_DAY = dayNumber('0001-01-01');

/*
 * The parameters and periods of the commerce metrics (docs/lending/commerce-metrics.md). Periods are half-open,
 * (start, end]: the last ends on `reportDate` (that day included), each `periodLength` units long, index 0 the
 * oldest. A month steps back to the same day of the month, clamped to the month's last day; a year is twelve months.
 * Every boundary is counted from `reportDate` itself, so clamping never drifts (31 March, 28 February, 31 January).
 */

export const PERIOD_UNITS = ['Day', 'Week', 'Month', 'Year'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** The longest span the periods may cover together, in days (ten years and change). */
export const MAX_SPAN_DAYS = 3660;
const WHOLE = { min: 1, max: MAX_SPAN_DAYS };

export interface CommercePeriod {
  index: number;
  /** The day before the period's first day (excluded), as a day number. */
  after: number;
  /** The period's last day (included), as a day number. */
  end: number;
}

export interface CommerceParameters {
  reportDate: string;
  periodUnit: PeriodUnit;
  periodLength: number;
  numberOfPeriods: number;
  includeDisplayNames: boolean;
  periods: CommercePeriod[];
}

/** The day number `steps` units of `unit` (each `length` long) before `day`. */
function boundary(day: string, unit: PeriodUnit, length: number, steps: number): number {
  switch (unit) {
    case 'Day':
      return dayNumber(day) - length * steps;
    case 'Week':
      return dayNumber(day) - 7 * length * steps;
    case 'Month':
      return dayNumber(addMonths(day, -length * steps));
    case 'Year':
      return dayNumber(addMonths(day, -12 * length * steps));
  }
}

/** A request's parameters; a missing or bad one (or periods spanning more than MAX_SPAN_DAYS) is a 400 naming it. */
export function commerceParameters(query: Readonly<Record<string, unknown>>): CommerceParameters {
  const problems: ParameterProblem[] = [];
  const rawDate = query.reportDate;
  const reportDate = rawDate === undefined || rawDate === '' ? undefined : reportDay(String(rawDate));
  if (reportDate === undefined)
    problems.push({ propertyName: 'reportDate', details: 'reportDate is required, as dd-MM-yyyy or yyyy-MM-dd (e.g. 29-09-2020).' });
  const unit = PERIOD_UNITS.find(
    (u) =>
      u.toLowerCase() ===
      String(query.periodUnit ?? '')
        .trim()
        .toLowerCase(),
  );
  if (unit === undefined)
    problems.push({ propertyName: 'periodUnit', details: `periodUnit is required: one of ${PERIOD_UNITS.join(', ')}.` });
  const periodLength = wholeNumber(query.periodLength, WHOLE);
  if (periodLength === undefined)
    problems.push({ propertyName: 'periodLength', details: `periodLength is required: a whole number from 1 (units per period).` });
  const numberOfPeriods = wholeNumber(query.numberOfPeriods, WHOLE);
  if (numberOfPeriods === undefined)
    problems.push({ propertyName: 'numberOfPeriods', details: 'numberOfPeriods is required: a whole number from 1.' });
  const display = String(query.includeDisplayNames ?? 'false')
    .trim()
    .toLowerCase();
  if (display !== 'true' && display !== 'false')
    problems.push({ propertyName: 'includeDisplayNames', details: 'includeDisplayNames must be true or false.' });
  if (problems.length === 0) {
    const unitDays = { Day: 1, Week: 7, Month: 28, Year: 365 }[unit!];
    // A first bound on the span before any date is computed (a huge count would otherwise make huge dates).
    const span =
      unitDays * periodLength! * numberOfPeriods! > MAX_SPAN_DAYS * 2
        ? Infinity
        : dayNumber(reportDate!) - boundary(reportDate!, unit!, periodLength!, numberOfPeriods!);
    if (!(span <= MAX_SPAN_DAYS))
      problems.push({
        propertyName: 'numberOfPeriods',
        details: `periodLength × numberOfPeriods must span at most ${MAX_SPAN_DAYS} days.`,
      });
    else if (dayNumber(reportDate!) - span + 1 < FIRST_DAY)
      problems.push({ propertyName: 'numberOfPeriods', details: 'The periods must start on or after 0001-01-01.' });
  }
  if (problems.length > 0) throw parameterError(problems, 'CommerceMetricsParameters');
  const periods: CommercePeriod[] = [];
  for (let index = 0; index < numberOfPeriods!; index++) {
    const stepsBack = numberOfPeriods! - 1 - index;
    periods.push({
      index,
      after: boundary(reportDate!, unit!, periodLength!, stepsBack + 1),
      end: boundary(reportDate!, unit!, periodLength!, stepsBack),
    });
  }
  return {
    reportDate: reportDate!,
    periodUnit: unit!,
    periodLength: periodLength!,
    numberOfPeriods: numberOfPeriods!,
    includeDisplayNames: display === 'true',
    periods,
  };
}

/** A period's first and last day as the report writes them (`YYYY-MM-DD`, both included). */
export function periodDays(period: CommercePeriod): { start: string; end: string } {
  return { start: dayOfNumber(period.after + 1), end: dayOfNumber(period.end) };
}
