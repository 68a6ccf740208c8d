import type { FetchContext } from '../generated-source.js';
import { OrderState } from './order-model.js';
import { CommercePlan } from './plan.js';
import { ProductCache } from './product-model.js';
import { feeOf, PAYOUT_BASE, payoutDay, payoutPeriod, processed } from './transactions.js';

/**
 * What each of the shop's payouts carried, for the books (docs/sandbox-banking-commerce.md, "One company, one story"):
 * the accounting Sandbox records every payout as a sale paid into the bank account of its currency, and the Banking
 * Sandbox shows it arriving. The amounts are the ones `commerce-transactions` pays out (the same orders, the same
 * sums), split into what the books need: the takings (card payments less card refunds, tax included), the tax in
 * them, and the processor's fees.
 */
export interface ShopPayout {
  /** The payout's `commerce-transactions` id. */
  id: string;
  /** Its period and currency (`period * 3 + currency`): a payout keeps it at every epoch, as it keeps its id. */
  slot: number;
  /** Day it reached the bank, `YYYY-MM-DD`. */
  date: string;
  /** 0 GBP, 1 USD, 2 EUR (the commerce and accounting Sandboxes number currencies alike). */
  currency: number;
  /** Cents paid out: takings less fees. */
  amount: number;
  /** Cents taken: card payments less card refunds, tax included (`amount + fees`). */
  takings: number;
  /** Cents of tax in the takings: each payment's share of its order's tax. */
  tax: number;
  /** Cents the processor kept. */
  fees: number;
  /** The latest sync at which the payout's amount changed (an order it settled was deleted), else 0. */
  changed: number;
}

const cache = new Map<string, ShopPayout[]>();

/** Every payout made by `asOf`, in id order (period, then currency), at `ctx.epoch`. Cached per settings and epoch. */
export function shopPayouts(ctx: FetchContext): ShopPayout[] {
  const { seed, invoices, asOf } = ctx.settings;
  const key = `${seed}|${invoices}|${asOf}|${ctx.epoch}`;
  let found = cache.get(key);
  if (!found) {
    found = compute(ctx);
    if (cache.size >= 8) cache.delete(cache.keys().next().value as string);
    cache.set(key, found);
  }
  return found;
}

/** The sums `commerce-transactions` makes its payouts of (transactions.ts), with the tax and fees kept apart. */
function compute(ctx: FetchContext): ShopPayout[] {
  const plan = new CommercePlan(ctx);
  const order = new OrderState(plan, new ProductCache(plan));
  const { cal } = plan;
  const period = payoutPeriod(plan);
  const buckets = Math.ceil(cal.days / period);
  const net = new Float64Array(buckets * 3);
  const fees = new Float64Array(buckets * 3);
  const tax = new Float64Array(buckets * 3);
  const touched = new Int32Array(buckets * 3);
  for (let o = 0; o < plan.orderMoves.total; o++) {
    order.fill(o);
    for (let i = 0; i < order.paymentCount; i++) {
      if (!processed(plan, order, i)) continue;
      const bucket = Math.floor(order.paySettledDay[i] / period) * 3 + order.currency;
      if (order.deleted) {
        if (order.deleted > touched[bucket]) touched[bucket] = order.deleted;
        continue;
      }
      const amount = order.payAmount[i];
      const fee = feeOf(order, i);
      net[bucket] += amount - fee;
      fees[bucket] += fee;
      // A payment carries its order's tax in proportion (a refund takes its share back).
      if (order.gross !== 0) tax[bucket] += Math.round((amount * order.tax) / order.gross);
    }
  }
  const out: ShopPayout[] = [];
  for (let b = 0; b < buckets; b++) {
    const day = payoutDay(plan, b);
    if (day > cal.days - 1) break;
    for (let c = 0; c < 3; c++) {
      const k = b * 3 + c;
      const amount = Math.round(net[k]);
      if (amount <= 0) continue;
      const fee = Math.round(fees[k]);
      out.push({
        id: plan.ids.transactions.of(PAYOUT_BASE + b * 4 + c),
        slot: k,
        date: cal.day(day),
        currency: c,
        amount,
        takings: amount + fee,
        tax: Math.round(tax[k]),
        fees: fee,
        changed: touched[k],
      });
    }
  }
  return out;
}
