import type { FetchContext } from '../generated-source.js';
import { OrderState } from './order-model.js';
import { CommercePlan } from './plan.js';
import { ProductCache } from './product-model.js';
import { feeOf, PAYOUT_BASE, payoutDay, payoutPeriod, processed } from './transactions.js';

/**
 * What reached the shop's bank from its sales, for the books (docs/sandbox-banking-commerce.md, "One company, one
 * story"): the accounting Sandbox records each as a sale paid into the bank account of its currency, and the Banking
 * Sandbox shows it arriving. Two kinds, per payout period and currency:
 * - the card processor's payout: the amounts `commerce-transactions` pays out (the same orders, the same sums), split
 *   into the takings (card payments less card refunds, tax included), the tax in them and the processor's fees;
 * - the takings banked: cash, PayPal and Klarna payments less their refunds (`banked` tenders), paid in on the payout's
 *   day, with no fee.
 * Gift cards and store credit bring no money (it came when the card was sold, which the shop's data does not hold),
 * and bank transfers (invoice payments) are not banked takings; neither is here.
 */
export interface ShopPayout {
  kind: 'card' | 'banked';
  /** A card payout's `commerce-transactions` id; '' for banked takings, which have no commerce record. */
  id: string;
  /** Its period, kind and currency (`(period * 3 + currency) * 2 + kind`): the same at every epoch. */
  slot: number;
  /** Day it reached the bank, `YYYY-MM-DD`. */
  date: string;
  /** 0 GBP, 1 USD, 2 EUR (the commerce and accounting Sandboxes number currencies alike). */
  currency: number;
  /** Cents paid in: takings less fees. */
  amount: number;
  /** Cents taken: payments less refunds, tax included (`amount + fees`). */
  takings: number;
  /** Cents of tax in the takings: each payment's share of its order's tax. */
  tax: number;
  /** Cents the processor kept (0 for banked takings). */
  fees: number;
}

/**
 * Everything paid in by `asOf`, in slot order (period, currency, kind), at `ctx.epoch`: the sums `commerce-transactions`
 * makes its payouts of (transactions.ts), with the tax and fees kept apart. One pass over the orders; the books keep
 * the answer (accounting/core/shop-sales.ts, per company).
 */
export function shopPayouts(ctx: FetchContext): ShopPayout[] {
  const plan = new CommercePlan(ctx);
  const order = new OrderState(plan, new ProductCache(plan));
  const { cal } = plan;
  const period = payoutPeriod(plan);
  const buckets = Math.ceil(cal.days / period);
  // Per (period, currency) * 2 + kind (0 card, 1 banked).
  const takings = new Float64Array(buckets * 6);
  const fees = new Float64Array(buckets * 6);
  const tax = new Float64Array(buckets * 6);
  for (let o = 0; o < plan.orderMoves.total; o++) {
    order.fill(o);
    if (order.deleted) continue;
    for (let i = 0; i < order.paymentCount; i++) {
      const card = processed(plan, order, i);
      if (!card && !(order.payStatus[i] === 'Paid' && plan.methods[order.payMethod[i]].def.banked)) continue;
      const k = (Math.floor(order.paySettledDay[i] / period) * 3 + order.currency) * 2 + (card ? 0 : 1);
      const amount = order.payAmount[i];
      takings[k] += amount;
      if (card) fees[k] += feeOf(order, i);
      // A payment carries its order's tax in proportion (a refund takes its share back).
      if (order.gross !== 0) tax[k] += Math.round((amount * order.tax) / order.gross);
    }
  }
  const out: ShopPayout[] = [];
  for (let b = 0; b < buckets; b++) {
    const day = payoutDay(plan, b);
    if (day > cal.days - 1) break;
    for (let c = 0; c < 3; c++) {
      for (const kind of ['card', 'banked'] as const) {
        const k = (b * 3 + c) * 2 + (kind === 'card' ? 0 : 1);
        const fee = Math.round(fees[k]);
        const amount = Math.round(takings[k]) - fee;
        // As `commerce-transactions`: a period whose refunds outweigh its takings pays nothing out.
        if (amount <= 0) continue;
        out.push({
          kind,
          id: kind === 'card' ? plan.ids.transactions.of(PAYOUT_BASE + b * 4 + c) : '',
          slot: k,
          date: cal.day(day),
          currency: c,
          amount,
          takings: amount + fee,
          tax: Math.round(tax[k]),
          fees: fee,
        });
      }
    }
  }
  return out;
}
