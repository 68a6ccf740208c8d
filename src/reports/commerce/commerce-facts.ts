import { KEPT_AT, KEPT_FIELDS } from '../../records/record-fields.js';
import type { RecordReader } from '../../records/record-reader.js';

/*
 * What the commerce metrics read of a connection's orders (docs/lending/commerce-metrics.md), once per orders version:
 * each order that counts (a Void, Draft or Cancelled one, or one whose every payment was cancelled or failed, does
 * not), its day, whether it is in the connection's base currency, its money in exact integers, and its customer.
 */

/** Orders left out: by their own status where a platform serves one, and sales cancelled before any money was taken. */
const LEFT_OUT = new Set(['void', 'draft', 'cancelled', 'canceled']);
const DEAD_PAYMENT = new Set(['cancelled', 'canceled', 'failed']);

export interface CommerceFacts {
  count: number;
  /** The order's `createdDate` day (days since 1970-01-01). */
  day: Int32Array;
  /** 1 when the order is in the base currency (its money counts), else 0. */
  base: Uint8Array;
  /** Σ quantity × unitPrice of its lines, in 10⁻⁸ units (exact at any size). */
  revenue: bigint[];
  /** `totalAmount`, in 10⁻⁴ units. */
  total: Float64Array;
  /** |`totalRefund`|, in 10⁻⁴ units (0: no refund). */
  refund: Float64Array;
  /** The customer (`customerRef.id`) as an index into `customers`, or -1. */
  customer: Int32Array;
  /** Each customer's first-ever order day (over every order that counts). */
  firstDay: Int32Array;
  customers: number;
  baseCurrency: string;
}

/** An amount in 10⁻⁴ units, exactly; 0 for none (or for one too large to scale, which no platform serves). */
const units4 = (value: unknown) => {
  const scaled = typeof value === 'number' ? Math.round(value * 10_000) : NaN;
  return Number.isFinite(scaled) ? scaled : 0;
};

/**
 * The facts of an orders version. `baseCurrency` is the company info's; without one, the currency most orders are in
 * (the first in text order among equals).
 */
export async function commerceFacts(
  reader: Pick<RecordReader, 'eachKept'>,
  version: number,
  baseCurrency: string | undefined,
): Promise<CommerceFacts> {
  const O = KEPT_AT.order;
  const L = KEPT_AT.orderLine;
  const day: number[] = [];
  const currency: unknown[] = [];
  const revenue: bigint[] = [];
  const total: number[] = [];
  const refund: number[] = [];
  const customer: number[] = [];
  const customerIndex = new Map<string, number>();
  const firstDay: number[] = [];
  await reader.eachKept([version], KEPT_FIELDS['commerce-orders'] ?? [], (tuple) => {
    const d = tuple[O.day];
    if (typeof d !== 'number') return; // no creation date: in no period
    if (LEFT_OUT.has(String(tuple[O.status] ?? '').toLowerCase())) return;
    const payments = (Array.isArray(tuple[O.payments]) ? tuple[O.payments] : []) as unknown[][];
    if (payments.length > 0 && payments.every((p) => DEAD_PAYMENT.has(String(p[0] ?? '').toLowerCase()))) return;
    let lines = 0n;
    for (const line of (Array.isArray(tuple[O.lines]) ? tuple[O.lines] : []) as unknown[][])
      lines += BigInt(units4(line[L.quantity])) * BigInt(units4(line[L.unitPrice]));
    day.push(d);
    currency.push(tuple[O.currency]);
    revenue.push(lines);
    total.push(units4(tuple[O.total]));
    refund.push(Math.abs(units4(tuple[O.refund])));
    const id = tuple[O.customer];
    if (typeof id === 'string' && id !== '') {
      let c = customerIndex.get(id);
      if (c === undefined) {
        c = firstDay.length;
        customerIndex.set(id, c);
        firstDay.push(d);
      } else if (d < firstDay[c]) firstDay[c] = d;
      customer.push(c);
    } else customer.push(-1);
  });
  let chosen = baseCurrency;
  if (chosen === undefined) {
    const counts = new Map<string, number>();
    for (const c of currency) if (typeof c === 'string') counts.set(c, (counts.get(c) ?? 0) + 1);
    chosen = [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0]?.[0] ?? '';
  }
  return {
    count: day.length,
    day: Int32Array.from(day),
    base: Uint8Array.from(currency, (c) => (c === chosen ? 1 : 0)),
    revenue,
    total: Float64Array.from(total),
    refund: Float64Array.from(refund),
    customer: Int32Array.from(customer),
    firstDay: Int32Array.from(firstDay),
    customers: firstDay.length,
    baseCurrency: chosen,
  };
}

/**
 * About how many bytes the facts hold, for the cache's bound: the typed arrays (about 25 bytes an order) and each
 * order's revenue as a BigInt on the heap with its array slot (about 40 more).
 */
export function commerceFactsBytes(facts: CommerceFacts): number {
  return facts.count * 72 + facts.customers * 4 + 256;
}
