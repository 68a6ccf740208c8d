import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { OrderState } from './order-model.js';
import { REFUND_SLOT } from './order-payments.js';
import { PAYMENT_SUFFIX } from './orders.js';
import { processingFee } from './payment-kinds.js';
import { CURRENCIES } from './places.js';
import { CommercePlan } from './plan.js';
import { ProductCache } from './product-model.js';
import { CommerceTransaction } from '../../../codat-model/commerce/schemas.js';

/** Transaction slots per order: payment and fee for payments 0 and 1, then the refund. */
export const SLOTS_PER_ORDER = 8;
/** Payouts are numbered after every order's transactions, so they come last. */
export const PAYOUT_BASE = 2 ** 40;
/** Days from the end of a payout period to the payout reaching the bank. */
export const PAYOUT_LAG = 2;

/** Payouts are daily for busy shops (two orders a day or more) and weekly for small ones. */
export function payoutPeriod(plan: CommercePlan): number {
  return plan.orderMoves.base / plan.cal.days >= 2 ? 1 : 7;
}

/** Day a payout period's money reaches the bank. */
export function payoutDay(plan: CommercePlan, bucket: number): number {
  return (bucket + 1) * payoutPeriod(plan) - 1 + PAYOUT_LAG;
}

function txn(
  plan: CommercePlan,
  index: number,
  fields: {
    amount: number;
    currency: number;
    type: string;
    subType: string;
    source: { id: string; type: string } | null;
    local: string;
    modified: string;
  },
): SourceRecord {
  const id = plan.ids.transactions.of(index);
  return {
    id,
    sourceModifiedDate: fields.modified,
    data: {
      id,
      totalAmount: fields.amount / 100,
      currency: CURRENCIES[fields.currency],
      type: fields.type,
      subType: fields.subType,
      ...(fields.source ? { transactionSourceRef: fields.source } : {}),
      createdDate: fields.local,
      sourceCreatedDate: fields.local,
      sourceModifiedDate: fields.modified,
    },
  };
}

/** Whether payment `i` of an order went through the card processor (settled card payment or card refund). */
export function processed(plan: CommercePlan, order: OrderState, i: number): boolean {
  return order.payStatus[i] === 'Paid' && plan.methods[order.payMethod[i]].def.processed;
}

/** The processor's fee (cents) on payment `i` (none on refunds: the processor keeps its fee). */
export function feeOf(order: OrderState, i: number): number {
  return order.paySlot[i] === REFUND_SLOT ? 0 : processingFee(order.currency, order.payAmount[i]);
}

/**
 * The card processor's balance transactions: each settled card payment with its fee, each card refund, and a
 * payout per period and currency of everything settled in it (paid out two days after the period ends;
 * later periods are still pending on `asOf`). Payout sums are kept per period (days × 3 numbers).
 */
function* transactions(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  const order = new OrderState(plan, new ProductCache(plan));
  const { cal } = plan;
  const period = payoutPeriod(plan);
  const buckets = Math.ceil(cal.days / period);
  const net = new Float64Array(buckets * 3);
  const touched = new Int32Array(buckets * 3);
  const total = plan.orderMoves.total;
  for (let o = 0; o < total; o++) {
    order.fill(o);
    let orderId = '';
    for (let i = 0; i < order.paymentCount; i++) {
      if (!processed(plan, order, i)) continue;
      const bucket = Math.floor(order.paySettledDay[i] / period) * 3 + order.currency;
      if (order.deleted) {
        // The payout that settled this order's money is recomputed without it.
        if (order.deleted > touched[bucket]) touched[bucket] = order.deleted;
        continue;
      }
      const amount = order.payAmount[i];
      const fee = feeOf(order, i);
      net[bucket] += amount - fee;
      const slot = order.paySlot[i];
      if (!orderId) orderId = plan.ids.orders.of(o);
      const source = { id: orderId + PAYMENT_SUFFIX[slot], type: 'Payment' };
      const local = order.settledLocal(i);
      // Captures by a later epoch happen at that epoch; everything else when the money moved.
      const modified = order.payChanged[i] ? cal.epochStamp(order.payChanged[i]) : `${local}Z`;
      const refund = slot === REFUND_SLOT;
      yield txn(plan, o * SLOTS_PER_ORDER + slot * 2, {
        amount,
        currency: order.currency,
        type: refund ? 'Refund' : 'Payment',
        subType: refund ? 'refund' : 'charge',
        source,
        local,
        modified,
      });
      if (fee) {
        yield txn(plan, o * SLOTS_PER_ORDER + slot * 2 + 1, {
          amount: -fee,
          currency: order.currency,
          type: 'PaymentFee',
          subType: 'stripe_fee',
          source,
          local,
          modified,
        });
      }
    }
  }
  for (let b = 0; b < buckets; b++) {
    const day = payoutDay(plan, b);
    if (day > cal.days - 1) break;
    for (let c = 0; c < 3; c++) {
      const amount = Math.round(net[b * 3 + c]);
      if (amount <= 0) continue;
      const local = cal.localTime(day, day === cal.days - 1 ? 1800 : 21600);
      yield txn(plan, PAYOUT_BASE + b * 4 + c, {
        amount: -amount,
        currency: c,
        type: 'Payout',
        subType: 'bank_transfer',
        source: null,
        local,
        modified: touched[b * 3 + c] ? cal.epochStamp(touched[b * 3 + c]) : `${local}Z`,
      });
    }
  }
}

export const commerceTransactions: GeneratedSource = {
  dataType: 'commerce-transactions',
  typeName: 'Transaction',
  schema: CommerceTransaction,
  fetch: transactions,
};
