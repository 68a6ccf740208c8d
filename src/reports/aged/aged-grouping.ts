import { addDecimals, compareDecimals } from '../../lib/decimal.js';
import { agingPeriods, periodIndex, type AgingParameters, type AgingPeriod } from './aging-periods.js';

/*
 * How an aged report groups what is outstanding (docs/lending/aged-reports.md): one row per counterparty and
 * currency (no conversion), every period listed with zeros included, each period's amount the exact sum of its
 * details, and the details always the three the report names, in that order.
 */

export type AgedSide = 'debtors' | 'creditors';

/** The details of each period, by what the amounts came from (Codat's names, in this order). */
export const AGED_DETAILS = {
  debtors: ['Invoices', 'CreditNotes', 'Payments'],
  creditors: ['Bills', 'BillCreditNotes', 'BillPayments'],
} as const satisfies Record<AgedSide, readonly string[]>;

export type AgedDetail<S extends AgedSide> = (typeof AGED_DETAILS)[S][number];

/**
 * One amount outstanding as at the report date: a document's remainder (an invoice's positive, a credit note's unused
 * credit negative) or money on account (a payment's unallocated part, negative), dated as it is aged (issue date,
 * payment date), as an exact decimal.
 */
export interface AgedAmount<S extends AgedSide = AgedSide> {
  counterpartyId: string;
  counterpartyName?: string;
  currency: string;
  date: string;
  detail: AgedDetail<S>;
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
 * The report's rows: a counterparty and currency appear when something of theirs is outstanding (a non-zero amount
 * dated on or before the report date); rows by counterparty name (case-insensitively), then id; currencies by code.
 */
export function agedRows<S extends AgedSide>(side: S, amounts: Iterable<AgedAmount<S>>, parameters: AgingParameters): AgedRow[] {
  const periods = agingPeriods(parameters);
  const details: readonly string[] = AGED_DETAILS[side];
  // counterparty → currency → period → detail → the amounts to add.
  const byCounterparty = new Map<string, { name?: string; currencies: Map<string, string[][][]> }>();
  for (const item of amounts) {
    if (compareDecimals(item.amount, '0') === 0) continue;
    const period = periodIndex(item.date, parameters);
    if (period === undefined) continue;
    const detail = details.indexOf(item.detail);
    if (detail < 0) throw new Error(`an aged ${side} amount from ${item.detail}, which the report does not name`);
    let counterparty = byCounterparty.get(item.counterpartyId);
    if (!counterparty) byCounterparty.set(item.counterpartyId, (counterparty = { currencies: new Map() }));
    counterparty.name ??= item.counterpartyName;
    let cells = counterparty.currencies.get(item.currency);
    if (!cells) counterparty.currencies.set(item.currency, (cells = periods.map(() => details.map(() => []))));
    cells[period][detail].push(item.amount);
  }
  const rows: AgedRow[] = [...byCounterparty].map(([counterpartyId, { name, currencies }]) => ({
    counterpartyId,
    ...(name !== undefined ? { counterpartyName: name } : {}),
    currencies: [...currencies]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([currency, cells]) => ({
        currency,
        periods: periods.map((period, p) => {
          const sums = cells[p].map((list) => (list.length > 0 ? addDecimals(list) : '0'));
          return { ...period, amount: addDecimals(sums), details: details.map((name, d) => ({ name, amount: sums[d] })) };
        }),
      })),
  }));
  return rows.sort(
    (a, b) =>
      (a.counterpartyName ?? '').localeCompare(b.counterpartyName ?? '', 'en', { sensitivity: 'base' }) ||
      (a.counterpartyId < b.counterpartyId ? -1 : a.counterpartyId > b.counterpartyId ? 1 : 0),
  );
}
