import type { DataTypeSource, FetchContext, SourceRecord } from '../../connector.js';
import { guid, h3, h4 } from '../banking/kit/fast.js';
import { Movement } from '../banking/kit/movement.js';
import { OrderState } from './order-model.js';
import { paymentId } from './orders.js';
import { CURRENCIES } from './places.js';
import { CommercePlan, KEY } from './plan.js';
import { ProductCache } from './product-model.js';
import { CommerceDispute, DISPUTE_STATUSES } from './schemas.js';

type Status = (typeof DISPUTE_STATUSES)[number];

const REASONS = ['Fraudulent', 'Product not received', 'Product unacceptable', 'Duplicate', 'Credit not processed', 'Unrecognised', 'General'];
const OPEN: readonly Status[] = ['EvidenceRequired', 'EvidenceRequired', 'InquiryEvidenceRequired', 'Processing', 'WaitingThirdParty', 'InquiryProcessing'];
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
function record(plan: CommercePlan, index: number, order: OrderState, i: number, createdLocal: string, createdDay: number, base: Status, changes: number[]): SourceRecord {
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

/** Candidates for a dispute opened at epoch k: recent orders, probed in a fixed pseudo-random order. */
function appendedTarget(plan: CommercePlan, k: number, j: number, probe: number): number {
  const window = Math.min(plan.orderMoves.base, Math.max(50, Math.round((plan.orderMoves.base * 60) / plan.cal.days)));
  return plan.orderMoves.base - 1 - (h4(plan.seed, k, j, probe) % window);
}

/** Orders a chargeback may look at after candidate order `o`: the first eligible one is disputed. */
const PROBES = 20;

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
  let baseCount = 0;
  for (let c = offset; c < plan.orderMoves.base; c += spacing) {
    for (let o = c; o < Math.min(c + PROBES, plan.orderMoves.base); o++) {
      order.fill(o);
      if (order.disputable < 0) continue;
      const createdDay = order.paySettledDay[order.disputable] + 10 + (h3(plan.seed, o, 0xda7) % 50);
      if (createdDay > last) continue;
      baseCount++;
      if (!order.deleted) {
        const age = last - createdDay;
        const base = age > DECIDED_AFTER ? CLOSED[h3(plan.seed, c, 0xc1) % CLOSED.length] : OPEN[h3(plan.seed, c, 0x0e) % OPEN.length];
        const createdLocal = cal.localTime(createdDay, createdDay === last ? 900 : 32400 + (h3(plan.seed, o, 0x7) % 28800));
        yield record(plan, c, order, order.disputable, createdLocal, createdDay, base, disputeMoves.changes(c, 0));
      }
      break;
    }
  }
  const perEpoch = Math.max(1, Math.round(baseCount * 0.01));
  const taken = new Set<number>();
  for (let k = 1; k <= plan.epoch; k++) {
    for (let j = 0; j < perEpoch; j++) {
      for (let probe = 0; probe < PROBES; probe++) {
        const o = appendedTarget(plan, k, j, probe);
        // Orders a base dispute may have taken, and orders already disputed by an earlier epoch, are skipped.
        if (taken.has(o) || (((o - offset) % spacing) + spacing) % spacing < PROBES) continue;
        order.fill(o);
        const slot = order.disputable;
        if (slot < 0) continue;
        taken.add(o);
        if (!order.deleted) {
          const index = APPENDED_BASE + k * 65536 + j;
          yield record(plan, index, order, slot, cal.epochLocal(k), last, OPEN[h3(plan.seed, index, 0x0e) % 2 ? 0 : 2], disputeMoves.changes(index, k));
        }
        break;
      }
    }
  }
}

export const commerceDisputes: DataTypeSource = {
  dataType: 'commerce-disputes',
  typeName: 'Dispute',
  schema: CommerceDispute,
  fetch: disputes,
};
