import { dayNumber, dayOfNumber } from '../../lib/calendar-date.js';
import { scaledText } from '../../lib/decimal.js';
import { agingPeriods, type AgingParameters, type AgingPeriod } from './aging-periods.js';
import { AGED_DETAILS, recordIdOf, type AgedFacts, type AgedSide } from './aged-facts.js';

/*
 * An aged report at a date, from the facts of a company's records (aged-facts.ts), and how it groups what is
 * outstanding (docs/lending/aged-reports.md): one row per counterparty and currency (no conversion), every period
 * listed with zeros included, each period's amount the exact sum of its details, and the details always the three the
 * report names, in that order.
 */

export type AgedDetail<S extends AgedSide> = (typeof AGED_DETAILS)[S][number];

/**
 * One amount outstanding as at the report date, and the record it comes from: a document's remainder (an invoice's
 * positive, a credit note's unused credit negative) or money on account (a payment's unallocated part, negative),
 * dated as it is aged (issue date, payment date), as an exact decimal.
 */
export interface AgedAmount {
  recordId: string;
  counterpartyId: string;
  currency: string;
  date: string;
  detail: string;
  amount: string;
}

/** A period's amounts as served: exact sums, each rounded once to the JSON number it is written as. */
export interface AgedPeriodAmount extends AgingPeriod {
  amount: number;
  details: { name: string; amount: number }[];
}

export interface AgedRow {
  counterpartyId: string;
  counterpartyName?: string;
  currencies: { currency: string; periods: AgedPeriodAmount[] }[];
}

/**
 * Each amount outstanding as at `reportDate` (see AgedAmount), in the facts' order: issued (paid) on or before it, its
 * reductions made on or before it taken off, and not zero. `visit` gets the amount's index and its units: a number
 * where the facts are exact in doubles, else a bigint.
 */
function eachOutstanding(facts: AgedFacts, reportDay: number, visit: (index: number, units: number | bigint) => void): void {
  const { day, reductionStart, reductionDay } = facts;
  if (facts.exact) {
    const { amount, adjustment } = facts.exact;
    for (let i = 0; i < day.length; i++) {
      if (day[i] > reportDay) continue;
      let units = amount[i];
      for (let r = reductionStart[i]; r < reductionStart[i + 1]; r++) if (reductionDay[r] <= reportDay) units += adjustment[r];
      if (units !== 0) visit(i, units);
    }
    return;
  }
  const { amount, adjustment } = facts.big!;
  for (let i = 0; i < day.length; i++) {
    if (day[i] > reportDay) continue;
    let units = amount[i];
    for (let r = reductionStart[i]; r < reductionStart[i + 1]; r++) if (reductionDay[r] <= reportDay) units += adjustment[r];
    if (units !== 0n) visit(i, units);
  }
}

/** Exact sums of units in numbered places, and their served amounts. */
interface Sums {
  add(at: number, units: number | bigint): void;
  isZero(at: number): boolean;
  /** The exact sum of `count` places from `at`, as the JSON number it is served as (rounded once). */
  served(at: number, count: number): number;
}

/** Sums in doubles, where the facts say every sum is exact in one. */
function doubleSums(size: number, places: number): Sums {
  const sums = new Float64Array(size);
  // Exact integers below 2^53 over an exact power of ten: one correctly rounded division, as parsing the decimal.
  const scale = 10 ** places;
  return {
    add: (at, units) => (sums[at] += units as number),
    isZero: (at) => sums[at] === 0,
    served: (at, count) => {
      let total = 0;
      for (let k = 0; k < count; k++) total += sums[at + k];
      return total / scale;
    },
  };
}

/** Sums in bigints, past 2^53 units. */
function bigSums(size: number, places: number): Sums {
  const sums = new Array<bigint>(size).fill(0n);
  return {
    add: (at, units) => (sums[at] += units as bigint),
    isZero: (at) => sums[at] === 0n,
    served: (at, count) => {
      let total = 0n;
      for (let k = 0; k < count; k++) total += sums[at + k];
      return servedNumber(total, places);
    },
  };
}

/** An exact decimal in its shortest form (`12.3`, `100`, `0`). */
function decimalText(units: bigint, places: number): string {
  const text = scaledText(units, places);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An exact sum as the JSON number it is served as, rounded once: below 2^53 the units and the power of ten are exact
 * doubles and their quotient is correctly rounded, as parsing the decimal would be; beyond, through the decimal.
 */
function servedNumber(units: bigint, places: number): number {
  if (units >= -SAFE && units <= SAFE && places <= 22) return Number(units) / 10 ** places;
  return Number(scaledText(units, places));
}

/** The amounts outstanding as at `reportDate`, each with the record it comes from: what a report's figures add up. */
export function outstandingAmounts(facts: AgedFacts, reportDate: string): AgedAmount[] {
  const out: AgedAmount[] = [];
  const names = AGED_DETAILS[facts.side];
  eachOutstanding(facts, dayNumber(reportDate), (i, units) =>
    out.push({
      recordId: recordIdOf(facts, i),
      counterpartyId: facts.parties[facts.party[i]].id,
      currency: facts.currencies[facts.currency[i]],
      date: dayOfNumber(facts.day[i]),
      detail: names[facts.detail[i]],
      amount: decimalText(BigInt(units), facts.places),
    }),
  );
  return out;
}

/**
 * A report's figures as at a date, before they are written out: per row of the report (a counterparty and currency),
 * the exact sums of each period's details. The JSON is written straight from it (aged-reports.routes.ts), with no
 * object per period: a report of tens of thousands of counterparties is mostly zeros.
 */
export interface AgedTable {
  periods: AgingPeriod[];
  details: readonly string[];
  /** The report's entries in order: a counterparty, and its rows (cells of the facts) by currency code. */
  entries: { counterpartyId: string; counterpartyName?: string; rows: { currency: string; cell: number }[] }[];
  /** Whether nothing is outstanding in a row's period. */
  isEmpty(cell: number, period: number): boolean;
  /** A period's amount as served (the exact sum of its details, rounded once), or one detail's. */
  amount(cell: number, period: number, detail?: number): number;
}

/**
 * The report's table: a counterparty and currency appear when something of theirs is outstanding (a non-zero amount
 * dated on or before the report date); entries by counterparty name (case-insensitively), then id; rows by currency.
 */
export function agedTable(facts: AgedFacts, parameters: AgingParameters): AgedTable {
  const periods = agingPeriods(parameters);
  const details: readonly string[] = AGED_DETAILS[facts.side];
  const reportDay = dayNumber(parameters.reportDate);
  const { periodLengthDays, numberOfPeriods } = parameters;
  const width = details.length;
  const stride = numberOfPeriods * width;
  // Per row of the report (cell), the period-by-detail sums, period-major; a row is listed when anything in it is not
  // zero.
  const { cell, cells, day, detail } = facts;
  const used = new Uint8Array(cells.length);
  const sums = (facts.exact ? doubleSums : bigSums)(cells.length * stride, facts.places);
  eachOutstanding(facts, reportDay, (i, units) => {
    const period = Math.min(Math.floor((reportDay - day[i]) / periodLengthDays), numberOfPeriods - 1);
    sums.add(cell[i] * stride + period * width + detail[i], units);
    used[cell[i]] = 1;
  });
  const byParty = new Map<number, { currency: string; cell: number }[]>();
  for (let row = 0; row < cells.length; row++) {
    if (!used[row]) continue;
    const { party, currency } = cells[row];
    let list = byParty.get(party);
    if (!list) byParty.set(party, (list = []));
    list.push({ currency: facts.currencies[currency], cell: row });
  }
  const entries = [...byParty]
    .sort(([a], [b]) => facts.partyRank[a] - facts.partyRank[b])
    .map(([partyAt, rows]) => {
      const { id, name } = facts.parties[partyAt];
      rows.sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
      return { counterpartyId: id, ...(name !== undefined ? { counterpartyName: name } : {}), rows };
    });
  return {
    periods,
    details,
    entries,
    isEmpty(row, period) {
      for (let d = 0, at = row * stride + period * width; d < width; d++, at++) if (!sums.isZero(at)) return false;
      return true;
    },
    amount: (row, period, d) =>
      d === undefined ? sums.served(row * stride + period * width, width) : sums.served(row * stride + period * width + d, 1),
  };
}

/** The report's rows as objects (what the JSON says), from its table. */
export function agedRows(facts: AgedFacts, parameters: AgingParameters): AgedRow[] {
  const table = agedTable(facts, parameters);
  return table.entries.map(({ rows, ...counterparty }) => ({
    ...counterparty,
    currencies: rows.map(({ currency, cell }) => ({
      currency,
      periods: table.periods.map((period, p) => ({
        ...period,
        amount: table.amount(cell, p),
        details: table.details.map((name, d) => ({ name, amount: table.amount(cell, p, d) })),
      })),
    })),
  }));
}
