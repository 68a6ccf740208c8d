import { addFigures } from '../lib/decimal.js';
import { monthEndDay, monthIndex, monthText } from '../lib/calendar-date.js';

/**
 * Financial statements served from monthly statement records (one record per month, id `YYYY-MM`), grouped into
 * `periodLength`-month periods. Flow statements (profit and loss, cash flow) add up their months; the balance
 * sheet is a position, so a period shows its last month.
 */

export interface ReportLine {
  accountId?: string;
  name?: string;
  value: number;
  items?: ReportLine[];
}

type MonthRecord = Record<string, unknown> & { id: string };

export interface PeriodRequest {
  periodLength: number;
  periodsToCompare: number;
  /** First month of the earliest period (`YYYY-MM...`); by default the periods end at the latest month. */
  startMonth?: string;
}

const IGNORED = new Set(['id', 'fromDate', 'toDate', 'date', 'modifiedDate', 'sourceModifiedDate', 'metadata', 'supplementalData']);

function isReportLine(value: unknown): value is ReportLine {
  return typeof value === 'object' && value !== null && typeof (value as ReportLine).value === 'number';
}

/** Adds report lines matched by account id (or name), recursively. */
export function addLines(a: ReportLine | undefined, b: ReportLine): ReportLine {
  if (!a) return structuredClone(b);
  // Months add up exactly, each figure taken as the decimal it is served as (never through binary floats).
  const out: ReportLine = { ...a, value: addFigures(a.value, b.value) };
  if (a.items || b.items) {
    const items = (a.items ?? []).map((i) => structuredClone(i));
    for (const item of b.items ?? []) {
      const key = item.accountId ?? item.name;
      const at = items.findIndex((i) => (i.accountId ?? i.name) === key);
      if (at >= 0) items[at] = addLines(items[at], item);
      else items.push(structuredClone(item));
    }
    out.items = items;
  }
  return out;
}

/** Sums the numeric fields and report lines of several months into one period. */
function sumMonths(months: MonthRecord[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const month of months) {
    for (const [key, value] of Object.entries(month)) {
      if (IGNORED.has(key)) continue;
      if (typeof value === 'number') out[key] = addFigures((out[key] as number | undefined) ?? 0, value);
      else if (isReportLine(value)) out[key] = addLines(out[key] as ReportLine | undefined, value);
      else if (!(key in out)) out[key] = value;
    }
  }
  return out;
}

/**
 * Whether a month record's field is in a period: its figures and report lines are; a position keeps its month's
 * `date`, a flow gets its period's `fromDate` and `toDate` instead of its months'.
 */
export function inPeriod(field: string, kind: 'flow' | 'position'): boolean {
  if (kind === 'position' && field === 'date') return true;
  if (kind === 'flow' && (field === 'fromDate' || field === 'toDate')) return true;
  return !IGNORED.has(field);
}

function strip(record: MonthRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (inPeriod(key, 'position')) out[key] = value;
  return out;
}

/**
 * Groups monthly records into periods, most recent first. Each period spans `periodLength` months; only months
 * with data count, and a period without any is left out.
 */
export function buildPeriods(records: MonthRecord[], request: PeriodRequest, kind: 'flow' | 'position') {
  const byMonth = new Map(records.map((r) => [monthIndex(r.id), r]));
  const indexes = [...byMonth.keys()].sort((a, b) => a - b);
  if (indexes.length === 0) return { reports: [], earliest: undefined, latest: undefined };
  const latest = indexes[indexes.length - 1];
  const firstStart = request.startMonth ? monthIndex(request.startMonth) : latest - request.periodLength * request.periodsToCompare + 1;
  const reports: Record<string, unknown>[] = [];
  for (let p = 0; p < request.periodsToCompare; p++) {
    const start = firstStart + p * request.periodLength;
    const end = start + request.periodLength - 1;
    const months = indexes.filter((i) => i >= start && i <= end).map((i) => byMonth.get(i) as MonthRecord);
    if (months.length === 0) continue;
    const fromDate = `${monthText(start)}-01T00:00:00`;
    const toDate = `${monthEndDay(end)}T00:00:00`;
    if (kind === 'position') reports.push(strip(months[months.length - 1]));
    else reports.push({ fromDate, toDate, ...sumMonths(months) });
  }
  reports.reverse();
  return { reports, earliest: `${monthText(indexes[0])}-01T00:00:00`, latest: `${monthText(latest)}-01T00:00:00` };
}
