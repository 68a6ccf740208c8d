import { parameterError, wholeNumber, type ParameterProblem } from '../report-requests.js';
import { isCalendarDate, monthIndex } from '../../lib/calendar-date.js';

/*
 * The parameters of the enhanced profit and loss and balance sheet (docs/lending/enhanced-financials.md): the month
 * that holds `reportDate` is the last period, and `numberOfPeriods` calendar months end with it.
 */

export const ENHANCED_BOUNDS = { numberOfPeriods: { min: 1, max: 120 } } as const;
export const ENHANCED_DEFAULTS = { numberOfPeriods: 12 } as const;

export interface EnhancedParameters {
  /** The last month, as a month index (year × 12 + month − 1); undefined: the last month with data (the P&L only). */
  lastMonth?: number;
  numberOfPeriods: number;
}

/** A time of day after the date, which changes nothing (the whole day, and its month, is meant). */
const TIME = '(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?';
const DAY_FIRST = new RegExp(`^(\\d{2})-(\\d{2})-(\\d{4})${TIME}$`);
const ISO_DAY = new RegExp(`^(\\d{4}-\\d{2}-\\d{2})${TIME}$`);

/**
 * `reportDate` as Codat's example writes it (`dd-MM-yyyy`) or as its older docs did (`yyyy-MM-dd`), either with a
 * time of day after a `T` (the whole day is meant); `undefined` for anything else.
 */
export function reportDay(raw: string): string | undefined {
  const text = raw.trim();
  const dayFirst = DAY_FIRST.exec(text);
  const iso = ISO_DAY.exec(text);
  const day = dayFirst ? `${dayFirst[3]}-${dayFirst[2]}-${dayFirst[1]}` : iso?.[1];
  return day !== undefined && isCalendarDate(day) && day >= '0001-01-01' ? day : undefined;
}

/**
 * The parameters of a request (query-string values as given). `reportDate` is required where `dateRequired` (the
 * balance sheet); a missing or malformed one, or a count out of bounds, is a 400 naming the parameter.
 */
export function enhancedParameters(query: Readonly<Record<string, unknown>>, dateRequired: boolean): EnhancedParameters {
  const problems: ParameterProblem[] = [];
  const given = query.reportDate;
  let lastMonth: number | undefined;
  if (given === undefined || given === '') {
    if (dateRequired) problems.push({ propertyName: 'reportDate', details: 'reportDate is required, as dd-MM-yyyy (e.g. 31-03-2024).' });
  } else {
    const day = reportDay(String(given));
    if (day === undefined)
      problems.push({ propertyName: 'reportDate', details: 'reportDate must be a date, as dd-MM-yyyy or yyyy-MM-dd (e.g. 31-03-2024).' });
    else lastMonth = monthIndex(day);
  }
  let numberOfPeriods: number = ENHANCED_DEFAULTS.numberOfPeriods;
  const raw = query.numberOfPeriods;
  if (raw !== undefined && raw !== '') {
    const { min, max } = ENHANCED_BOUNDS.numberOfPeriods;
    const value = wholeNumber(raw, ENHANCED_BOUNDS.numberOfPeriods);
    if (value === undefined)
      problems.push({ propertyName: 'numberOfPeriods', details: `numberOfPeriods must be a whole number from ${min} to ${max}.` });
    else numberOfPeriods = value;
  }
  if (problems.length > 0) throw parameterError(problems, 'EnhancedFinancialsParameters');
  return { ...(lastMonth !== undefined ? { lastMonth } : {}), numberOfPeriods };
}
