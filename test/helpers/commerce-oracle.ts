import { expect } from 'vitest';

/*
 * Commerce metrics worked out here from the orders and company info a connection serves, by the rules of
 * docs/lending/commerce-metrics.md, written plainly (dates with JavaScript's Date, money in floating point) and with
 * none of the service's code: the test then holds the served report to them.
 */

type Data = Record<string, any>;

export const REPORTS = ['revenue', 'orders', 'refunds', 'customerRetention', 'lifetimeValue'] as const;
export type Unit = 'Day' | 'Week' | 'Month' | 'Year';

const DAY = 86_400_000;
const dayOf = (text: string) => Math.floor(Date.parse(`${text.slice(0, 10)}T00:00:00Z`) / DAY);
const text = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

/** The day `k` periods of `length` units before `reportDate` (the same day of the month, clamped, for months). */
function back(reportDate: string, unit: Unit, length: number, k: number): number {
  if (unit === 'Day') return dayOf(reportDate) - length * k;
  if (unit === 'Week') return dayOf(reportDate) - 7 * length * k;
  const months = (unit === 'Year' ? 12 : 1) * length * k;
  const [y, m, d] = reportDate.split('-').map(Number);
  const first = new Date(Date.UTC(y, m - 1 - months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return Math.floor(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, last)) / DAY);
}

const counts = (o: Data) => {
  if (['void', 'draft', 'cancelled', 'canceled'].includes(String(o.status ?? '').toLowerCase())) return false;
  const payments: Data[] = o.payments ?? [];
  return !(
    payments.length > 0 && payments.every((p) => ['cancelled', 'canceled', 'failed'].includes(String(p.status ?? '').toLowerCase()))
  );
};

/** Each report's values per period (index 0 the oldest), undefined where a measure is left out. */
export function expectedMetrics(orders: Data[], baseCurrency: string, reportDate: string, unit: Unit, length: number, n: number) {
  const kept = orders.filter((o) => counts(o) && typeof o.createdDate === 'string');
  const first = new Map<string, number>();
  for (const o of kept) {
    const c = o.customerRef?.id;
    if (c) first.set(c, Math.min(first.get(c) ?? Infinity, dayOf(o.createdDate)));
  }
  const periods = Array.from({ length: n }, (_, i) => ({
    after: back(reportDate, unit, length, n - i),
    end: back(reportDate, unit, length, n - 1 - i),
  }));
  const rows = periods.map(({ after, end }) => {
    const inside = kept.filter((o) => dayOf(o.createdDate) > after && dayOf(o.createdDate) <= end);
    const base = inside.filter((o) => o.currency === baseCurrency);
    const revenue = base.reduce(
      (s, o) => s + (o.orderLineItems ?? []).reduce((t: number, l: Data) => t + (l.quantity ?? 0) * (l.unitPrice ?? 0), 0),
      0,
    );
    const total = base.reduce((s, o) => s + (o.totalAmount ?? 0), 0);
    const refunded = inside.filter((o) => o.totalRefund !== undefined && o.totalRefund !== null && o.totalRefund !== 0);
    const refundValue = base.reduce((s, o) => s + Math.abs(o.totalRefund ?? 0), 0);
    const customers = new Set(inside.map((o) => o.customerRef?.id).filter(Boolean));
    const existing = [...customers].filter((c) => first.get(c)! <= after).length;
    const fresh = customers.size - existing;
    const named = base.filter((o) => o.customerRef?.id);
    const spans = new Map<string, [number, number]>();
    for (const o of named) {
      const d = dayOf(o.createdDate);
      const s = spans.get(o.customerRef.id) ?? [d, d];
      spans.set(o.customerRef.id, [Math.min(s[0], d), Math.max(s[1], d)]);
    }
    const c = spans.size;
    const aov = named.length ? named.reduce((s, o) => s + o.totalAmount, 0) / named.length : 0;
    const lifespan = c ? [...spans.values()].reduce((s, [a, b]) => s + (b - a), 0) / c : 0;
    return {
      start: text(after + 1),
      end: text(end),
      revenue,
      orders: inside.length,
      total,
      aov: base.length ? total / base.length : 0,
      refunds: refunded.length,
      refundValue,
      refundRate: inside.length ? refunded.length / inside.length : 0,
      existing,
      fresh,
      ltv: c ? aov * (named.length / c) * lifespan : 0,
    };
  });
  return {
    periods: rows.map((r) => ({ start: r.start, end: r.end })),
    revenue: rows.map((r, i) => [
      r.revenue,
      i > 0 && rows[i - 1].revenue !== 0 ? ((r.revenue - rows[i - 1].revenue) / rows[i - 1].revenue) * 100 : undefined,
    ]),
    orders: rows.map((r) => [r.orders, r.total, r.aov]),
    refunds: rows.map((r) => [r.refunds, r.refundValue, r.refundRate]),
    customerRetention: rows.map((r, i) => {
      const before = i > 0 ? rows[i - 1].existing + rows[i - 1].fresh : 0;
      const total = r.existing + r.fresh;
      return [r.existing, r.fresh, total, before ? (r.existing / before) * 100 : 0, total ? (r.existing / total) * 100 : 0];
    }),
    lifetimeValue: rows.map((r) => [r.ltv]),
  };
}

/** Holds a served report to the expected values: counts exactly, the rest to the cent (each is rounded to two places). */
export function expectReport(report: Data, name: (typeof REPORTS)[number], expected: ReturnType<typeof expectedMetrics>) {
  expect(report.dimensions[0].items.map((i: Data) => ({ start: i.start, end: i.end }))).toEqual(expected.periods);
  const problems: string[] = [];
  report.reportData.forEach((period: Data, p: number) => {
    const want = expected[name][p];
    period.components.forEach((component: Data, k: number) => {
      const value = component.measures[0]?.value;
      const target = want[k];
      if (target === undefined) {
        if (component.measures.length !== 0) problems.push(`${name} period ${p} item ${k}: ${value}, expected none`);
        return;
      }
      const exact = Number.isInteger(target) && report.measures[component.measures[0]?.index]?.type === 'int';
      if (value === undefined || (exact ? value !== target : Math.abs(value - target) > 0.0051))
        problems.push(`${name} period ${p} item ${k}: ${value}, expected ${target}`);
    });
  });
  expect(problems).toEqual([]);
}
