import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { guid, h3 } from '../banking/kit/fast.js';
import { Movement } from '../banking/kit/movement.js';
import { OrderState } from './order-model.js';
import { paymentId } from './orders.js';
import { CURRENCIES } from './places.js';
import { CommercePlan, KEY } from './plan.js';
import { ProductCache } from './product-model.js';
import { CommerceDispute, DISPUTE_STATUSES } from '../../../codat-model/commerce/schemas.js';

type Status = (typeof DISPUTE_STATUSES)[number];

const REASONS = [
  'Fraudulent',
  'Product not received',
  'Product unacceptable',
  'Duplicate',
  'Credit not processed',
  'Unrecognised',
  'General',
];
const OPEN: readonly Status[] = [
  'EvidenceRequired',
  'EvidenceRequired',
  'InquiryEvidenceRequired',
  'Processing',
  'WaitingThirdParty',
  'InquiryProcessing',
];
const CLOSED: readonly Status[] = ['Won', 'Won', 'Won', 'Lost', 'Lost', 'Accepted', 'ChargeRefunded', 'InquiryClosed'];
/** Disputes opened by later epochs are numbered after every order's dispute. */
const APPENDED_BASE = 2 ** 40;
/** A dispute older than this (days) has been decided. */
const DECIDED_AFTER = 75;

/** Status after `changes` changes: open disputes move to Processing, then to a decision. */
function statusOf(plan: CommercePlan, index: number, base: Status, changes: number[]): Status {
  if (CLOSED.includes(base) || changes.length === 0) return base;
  if (changes.length === 1) return 'Processing';
  return h3(plan.seed, index, changes[1]) % 2 ? 'Won' : 'Lost';
}

/** The dispute of payment `i` (an index into the order's payments) of `order`. */
function record(
  plan: CommercePlan,
  index: number,
  order: OrderState,
  i: number,
  createdLocal: string,
  createdDay: number,
  base: Status,
  changes: number[],
): SourceRecord {
  const id = guid(plan.seed, KEY.disputes, index);
  const status = statusOf(plan, index, base, changes);
  const changed = status === base ? 0 : changes[Math.min(changes.length, 2) - 1];
  const modified = changed ? plan.cal.epochStamp(changed) : `${createdLocal}Z`;
  return {
    id,
    sourceModifiedDate: modified,
    data: {
      id,
      disputedTransactions: [{ id: paymentId(plan, order.o, order.paySlot[i]), type: 'Payment' }],
      totalAmount: -order.payAmount[i] / 100,
      currency: CURRENCIES[order.currency],
      status,
      reason: REASONS[h3(plan.seed, index, 0x4ea) % REASONS.length],
      dueDate: plan.cal.local(createdDay + 7 + (h3(plan.seed, index, 0xd0e) % 15)),
      createdDate: createdLocal,
      sourceModifiedDate: modified,
    },
  };
}

/** Orders an appended dispute may look at: one block of consecutive orders, the first eligible one is disputed. */
const BLOCK = 5;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * Disputes opened by later epochs target recent orders (the last 120 days, at least 200 orders): the b-th one
 * opened looks at block `(b × m + c) mod blocks` of them, an affine permutation, so no two ever look at the same
 * orders and nothing needs remembering. Once every block has been used (after hundreds of epochs for a large
 * shop, about 40 for the smallest) no more are opened.
 */
function appendedBlocks(plan: CommercePlan): { first: number; blocks: number; multiplier: number; shift: number } {
  const base = plan.orderMoves.base;
  const window = Math.min(base, Math.max(200, Math.round((base * 120) / plan.cal.days)));
  const blocks = Math.floor(window / BLOCK);
  let multiplier = 7919 % Math.max(1, blocks) || 1;
  while (blocks > 1 && gcd(multiplier, blocks) !== 1) multiplier++;
  return { first: base - blocks * BLOCK, blocks, multiplier, shift: h3(plan.seed, KEY.disputes, 0xb10c) % Math.max(1, blocks) };
}

/** Orders a base chargeback may look at from its candidate order: the first eligible one is disputed. */
const PROBES = 5;

/**
 * Every `spacing`-th order (from a seeded offset) is a dispute candidate: about 1.2% of orders, and at least
 * eight candidates however small the shop, so every company has disputes.
 */
function candidates(plan: CommercePlan): { spacing: number; offset: number } {
  const rate = Math.max(0.012, 8 / plan.orderMoves.base);
  const spacing = Math.max(PROBES + 1, Math.round(1 / rate));
  return { spacing, offset: h3(plan.seed, KEY.disputes, 0x0ff) % spacing };
}

/**
 * Chargebacks against settled card payments: about 1.2% of orders at epoch 0 (numbered by their candidate
 * order), and each later epoch opens about 1% more against recent orders. A dispute disappears with its order.
 */
function* disputes(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  const order = new OrderState(plan, new ProductCache(plan));
  const { cal } = plan;
  const last = cal.days - 1;
  // Disputes change on their own (status progress): same hash rule as every type, keyed by dispute number.
  const disputeMoves = new Movement(plan.seed, KEY.disputes, 0, plan.epoch);
  const { spacing, offset } = candidates(plan);
  // The order a base candidate disputes: the first in its window with a settled card payment whose dispute
  // would have opened by asOf (leaves `order` filled with it), or -1.
  const basePick = (c: number, upTo = c + PROBES - 1): number => {
    for (let o = c; o <= Math.min(upTo, plan.orderMoves.base - 1); o++) {
      order.fill(o);
      if (order.disputable >= 0 && openedDay(plan, order, o) <= last) return o;
    }
    return -1;
  };
  let baseCount = 0;
  for (let c = offset; c < plan.orderMoves.base; c += spacing) {
    const o = basePick(c);
    if (o < 0) continue;
    baseCount++;
    if (order.deleted) continue;
    const createdDay = openedDay(plan, order, o);
    const base =
      last - createdDay > DECIDED_AFTER ? CLOSED[h3(plan.seed, c, 0xc1) % CLOSED.length] : OPEN[h3(plan.seed, c, 0x0e) % OPEN.length];
    const createdLocal = cal.localTime(createdDay, createdDay === last ? 900 : 32400 + (h3(plan.seed, o, 0x7) % 28800));
    yield record(plan, c, order, order.disputable, createdLocal, createdDay, base, disputeMoves.changes(c, 0));
  }
  const perEpoch = Math.max(1, Math.round(baseCount * 0.01));
  const { first, blocks, multiplier, shift } = appendedBlocks(plan);
  for (let k = 1; k <= plan.epoch; k++) {
    for (let j = 0; j < perEpoch; j++) {
      const b = (k - 1) * perEpoch + j;
      if (b >= blocks) break;
      const start = first + ((b * multiplier + shift) % blocks) * BLOCK;
      for (let o = start; o < start + BLOCK; o++) {
        // Skip the order a base dispute took (only the first eligible order of a candidate window is taken).
        const c = o - ((((o - offset) % spacing) + spacing) % spacing);
        if (o - c < PROBES && c >= 0 && basePick(c, o) === o) continue;
        order.fill(o);
        // Not an order gone by the time the dispute opens; one deleted later takes its dispute with it.
        if (order.disputable < 0 || (order.deleted && order.deleted <= k)) continue;
        if (!order.deleted) {
          const index = APPENDED_BASE + k * 65536 + j;
          yield record(
            plan,
            index,
            order,
            order.disputable,
            cal.epochLocal(k),
            last,
            OPEN[h3(plan.seed, index, 0x0e) % 2 ? 0 : 2],
            disputeMoves.changes(index, k),
          );
        }
        break;
      }
    }
  }
}

/** Day a base chargeback on the order's disputable payment opens: 10 to 59 days after the money was taken. */
function openedDay(plan: CommercePlan, order: OrderState, o: number): number {
  return order.paySettledDay[order.disputable] + 10 + (h3(plan.seed, o, 0xda7) % 50);
}

export const commerceDisputes: GeneratedSource = {
  dataType: 'commerce-disputes',
  typeName: 'Dispute',
  schema: CommerceDispute,
  fetch: disputes,
};
