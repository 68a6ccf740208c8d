import { dayNumber } from '../../lib/calendar-date.js';
import { scaledText } from '../../lib/decimal.js';
import { agingPeriods, type AgingParameters, type AgingPeriod } from './aging-periods.js';
import { AGED_DETAILS, type AgedFacts, type AgedSide } from './aged-facts.js';

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

export interface AgedPeriodAmount extends AgingPeriod {
  amount: string;
  details: { name: string; amount: string }[];
}

export interface AgedRow {
  counterpartyId: string;
  counterpartyName?: string;
  currencies: { currency: string; periods: AgedPeriodAmount[] }[];
}

/**
 * Each amount outstanding as at `reportDate` (see AgedAmount), in the facts' order: issued (paid) on or before it, its
 * reductions made on or before it taken off, and not zero. `visit` gets the amount's index and its units.
 */
function eachOutstanding(facts: AgedFacts, reportDay: number, visit: (index: number, units: bigint) => void): void {
  const { day, amount, reductionStart, reductionDay, adjustment } = facts;
  for (let i = 0; i < day.length; i++) {
    if (day[i] > reportDay) continue;
    let units = amount[i];
    for (let r = reductionStart[i]; r < reductionStart[i + 1]; r++) if (reductionDay[r] <= reportDay) units += adjustment[r];
    if (units !== 0n) visit(i, units);
  }
}

/** An exact decimal in its shortest form (`12.3`, `100`, `0`). */
function decimalText(units: bigint, places: number): string {
  const text = scaledText(units, places);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

const DAY_MS = 86_400_000;
const isoOf = (day: number) => {
  const date = new Date(day * DAY_MS);
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${date.toISOString().slice(5, 10)}`;
};

/** The amounts outstanding as at `reportDate`, each with the record it comes from: what a report's figures add up. */
export function outstandingAmounts(facts: AgedFacts, reportDate: string): AgedAmount[] {
  const out: AgedAmount[] = [];
  const names = AGED_DETAILS[facts.side];
  eachOutstanding(facts, dayNumber(reportDate), (i, units) =>
    out.push({
      recordId: facts.recordId[i],
      counterpartyId: facts.parties[facts.party[i]].id,
      currency: facts.currencies[facts.currency[i]],
      date: isoOf(facts.day[i]),
      detail: names[facts.detail[i]],
      amount: decimalText(units, facts.places),
    }),
  );
  return out;
}

/**
 * The report's rows: a counterparty and currency appear when something of theirs is outstanding (a non-zero amount
 * dated on or before the report date); rows by counterparty name (case-insensitively), then id; currencies by code.
 */
export function agedRows(facts: AgedFacts, parameters: AgingParameters): AgedRow[] {
  const periods = agingPeriods(parameters);
  const names: readonly string[] = AGED_DETAILS[facts.side];
  const reportDay = dayNumber(parameters.reportDate);
  const { periodLengthDays, numberOfPeriods } = parameters;
  const width = names.length;
  // (counterparty, currency) → the period-by-detail sums, period-major.
  const cells = new Map<number, bigint[]>();
  const currencies = facts.currencies.length;
  eachOutstanding(facts, reportDay, (i, units) => {
    const key = facts.party[i] * currencies + facts.currency[i];
    let sums = cells.get(key);
    if (!sums) cells.set(key, (sums = new Array<bigint>(numberOfPeriods * width).fill(0n)));
    const period = Math.min(Math.floor((reportDay - facts.day[i]) / periodLengthDays), numberOfPeriods - 1);
    sums[period * width + facts.detail[i]] += units;
  });
  const text = (units: bigint) => decimalText(units, facts.places);
  const byParty = new Map<number, AgedRow['currencies']>();
  for (const [key, sums] of cells) {
    const partyAt = Math.floor(key / currencies);
    let list = byParty.get(partyAt);
    if (!list) byParty.set(partyAt, (list = []));
    list.push({
      currency: facts.currencies[key % currencies],
      periods: periods.map((period, p) => {
        const row = sums.slice(p * width, (p + 1) * width);
        return {
          ...period,
          amount: text(row.reduce((a, b) => a + b, 0n)),
          details: names.map((name, d) => ({ name, amount: text(row[d]) })),
        };
      }),
    });
  }
  const rows: AgedRow[] = [...byParty].map(([partyAt, list]) => {
    const { id, name } = facts.parties[partyAt];
    return {
      counterpartyId: id,
      ...(name !== undefined ? { counterpartyName: name } : {}),
      currencies: list.sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0)),
    };
  });
  return rows.sort(
    (a, b) =>
      (a.counterpartyName ?? '').localeCompare(b.counterpartyName ?? '', 'en', { sensitivity: 'base' }) ||
      (a.counterpartyId < b.counterpartyId ? -1 : a.counterpartyId > b.counterpartyId ? 1 : 0),
  );
}
