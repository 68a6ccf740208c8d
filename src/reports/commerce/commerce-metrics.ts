import type { CommerceFacts } from './commerce-facts.js';
import { periodDays, type CommerceParameters } from './commerce-periods.js';

/*
 * The five commerce metrics reports (docs/lending/commerce-metrics.md) in Codat's `CommerceReport` shape, from a
 * connection's order facts and the periods asked for. Money sums only orders in the base currency; counts take every
 * order; every figure is exact until it is rounded once, to two places (half away from zero), as Codat's are.
 */

export const COMMERCE_REPORTS = {
  revenue: {
    name: 'revenue',
    displayName: 'Revenue',
    dimension: 'Revenue metrics',
    items: ['Revenue', 'Revenue growth'],
    measures: [
      ['Value', 'currency'],
      ['Percentage change vs. previous period', 'percentage'],
    ],
    measureOf: [0, 1],
  },
  orders: {
    name: 'orders',
    displayName: 'Orders',
    dimension: 'Order metrics',
    items: ['Number of orders', 'Total value', 'Average order value'],
    measures: [
      ['Count', 'int'],
      ['Value', 'currency'],
    ],
    measureOf: [0, 1, 1],
  },
  refunds: {
    name: 'refunds',
    displayName: 'Refunds',
    dimension: 'Refund metrics',
    items: ['Number of refunds', 'Value of refunds', 'Refund rate'],
    measures: [
      ['Count', 'int'],
      ['Value', 'currency'],
      ['Percentage', 'percentage'],
    ],
    measureOf: [0, 1, 2],
  },
  customerRetention: {
    name: 'customer_retention',
    displayName: 'Customer Retention',
    dimension: 'Customer retention metrics',
    items: ['Existing customers', 'New customers', 'Total customers', 'Retention rate', 'Repeat rate'],
    measures: [
      ['Count', 'int'],
      ['Percentage', 'percentage'],
    ],
    measureOf: [0, 0, 0, 1, 1],
  },
  lifetimeValue: {
    name: 'lifetime_value',
    displayName: 'Lifetime Value',
    dimension: 'Lifetime value metrics',
    items: ['Lifetime value'],
    measures: [['Value', 'currency']],
    measureOf: [0],
  },
} as const satisfies Record<
  string,
  {
    name: string;
    displayName: string;
    dimension: string;
    items: readonly string[];
    measures: readonly (readonly [string, 'currency' | 'percentage' | 'int'])[];
    measureOf: readonly number[];
  }
>;

export type CommerceReportName = keyof typeof COMMERCE_REPORTS;

/** One period's sums over the orders in it. */
interface PeriodSums {
  orders: number;
  baseOrders: number;
  revenue: bigint;
  total: bigint;
  refunds: number;
  refundValue: bigint;
  existing: number;
  fresh: number;
  /** Base-currency orders that name a customer, their Σ totalAmount, their distinct customers and Σ lifespans. */
  ltvTotal: bigint;
  ltvCustomers: number;
  ltvSpan: number;
}

/** `numerator / denominator` rounded to two places, half away from zero, from exact integers; 0 when dividing by 0. */
export function rounded(numerator: bigint, denominator: bigint): number {
  if (denominator === 0n) return 0;
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const hundredths = (n * 200n + d) / (2n * d);
  return (negative ? -Number(hundredths) : Number(hundredths)) / 100;
}

/** Each period's sums; the customer measures only when `customers` (retention and lifetime value need them). */
function sumsOf(facts: CommerceFacts, parameters: CommerceParameters, customers: boolean): PeriodSums[] {
  const { periods } = parameters;
  const sums: PeriodSums[] = periods.map(() => ({
    orders: 0,
    baseOrders: 0,
    revenue: 0n,
    total: 0n,
    refunds: 0,
    refundValue: 0n,
    existing: 0,
    fresh: 0,
    ltvTotal: 0n,
    ltvCustomers: 0,
    ltvSpan: 0,
  }));
  // Per period and customer: seen at all; and, over base-currency orders, the first and last day.
  const seen = periods.map(() => new Set<number>());
  const spans = periods.map(() => new Map<number, [first: number, last: number]>());
  const first = periods[0].after;
  const last = periods[periods.length - 1].end;
  for (let i = 0; i < facts.count; i++) {
    const day = facts.day[i];
    if (day <= first || day > last) continue;
    // The period holding the day: the first whose end is on or after it.
    let lo = 0;
    let hi = periods.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (periods[mid].end < day) lo = mid + 1;
      else hi = mid;
    }
    const p = lo;
    const s = sums[p];
    s.orders++;
    if (facts.refund[i] !== 0) s.refunds++;
    const base = facts.base[i] === 1;
    if (base) {
      s.baseOrders++;
      s.revenue += facts.revenue[i];
      s.total += BigInt(facts.total[i]);
      s.refundValue += BigInt(facts.refund[i]);
    }
    const c = facts.customer[i];
    if (c < 0 || !customers) continue;
    if (!seen[p].has(c)) {
      seen[p].add(c);
      if (facts.firstDay[c] > periods[p].after) s.fresh++;
      else s.existing++;
    }
    if (base) {
      s.ltvTotal += BigInt(facts.total[i]);
      const span = spans[p].get(c);
      if (!span) spans[p].set(c, [day, day]);
      else {
        if (day < span[0]) span[0] = day;
        if (day > span[1]) span[1] = day;
      }
    }
  }
  spans.forEach((byCustomer, p) => {
    sums[p].ltvCustomers = byCustomer.size;
    for (const [a, b] of byCustomer.values()) sums[p].ltvSpan += b - a;
  });
  return sums;
}

/** Each item's value in a period (undefined: the measure is left out, as revenue growth with nothing to grow from). */
function values(name: CommerceReportName, sums: PeriodSums[], p: number): (number | undefined)[] {
  const s = sums[p];
  const previous = p > 0 ? sums[p - 1] : undefined;
  switch (name) {
    case 'revenue':
      return [
        rounded(s.revenue, 100_000_000n),
        previous && previous.revenue !== 0n ? rounded((s.revenue - previous.revenue) * 100n, previous.revenue) : undefined,
      ];
    case 'orders':
      return [s.orders, rounded(s.total, 10_000n), rounded(s.total, BigInt(s.baseOrders) * 10_000n)];
    case 'refunds':
      return [s.refunds, rounded(s.refundValue, 10_000n), rounded(BigInt(s.refunds), BigInt(s.orders))];
    case 'customerRetention': {
      const total = s.existing + s.fresh;
      const before = previous ? previous.existing + previous.fresh : 0;
      return [
        s.existing,
        s.fresh,
        total,
        rounded(BigInt(s.existing) * 100n, BigInt(before)),
        rounded(BigInt(s.existing) * 100n, BigInt(total)),
      ];
    }
    case 'lifetimeValue':
      // AOV × (orders / customers) × mean lifespan = Σ totalAmount × Σ lifespan / customers².
      return [rounded(s.ltvTotal * BigInt(s.ltvSpan), BigInt(s.ltvCustomers) ** 2n * 10_000n)];
  }
}

/** The report in Codat's `CommerceReport` shape. */
export function commerceReport(name: CommerceReportName, facts: CommerceFacts, parameters: CommerceParameters) {
  const report = COMMERCE_REPORTS[name];
  const sums = sumsOf(facts, parameters, name === 'customerRetention' || name === 'lifetimeValue');
  const named = parameters.includeDisplayNames;
  return {
    reportInfo: { name: report.name, displayName: report.displayName },
    dimensions: [
      {
        index: 0,
        displayName: 'Period',
        type: 'datespan',
        items: parameters.periods.map((period) => ({ index: period.index, displayName: `Period ${period.index}`, ...periodDays(period) })),
      },
      { index: 1, displayName: report.dimension, type: 'string', items: report.items.map((value, index) => ({ index, value })) },
    ],
    measures: (report.measures as readonly (readonly [string, string])[]).map(([displayName, type], index) => ({
      index,
      displayName,
      type,
      ...(type === 'currency' ? { units: facts.baseCurrency } : type === 'percentage' ? { units: '%' } : {}),
    })),
    reportData: parameters.periods.map((period) => {
      const figures = values(name, sums, period.index);
      return {
        dimension: 0,
        ...(named && { dimensionDisplayName: 'Period' }),
        item: period.index,
        ...(named && { itemDisplayName: `Period ${period.index}` }),
        components: report.items.map((item: string, k: number) => {
          const measure: number = report.measureOf[k];
          const measureName: string = (report.measures as readonly (readonly [string, string])[])[measure][0];
          const value = figures[k];
          return {
            dimension: 1,
            ...(named && { dimensionDisplayName: report.dimension }),
            item: k,
            ...(named && { itemDisplayName: item }),
            measures: value === undefined ? [] : [{ index: measure, ...(named && { measureDisplayName: measureName }), value }],
          };
        }),
      };
    }),
    errors: [] as { message: string; type: string; details: Record<string, string[]> }[],
  };
}
