import { type Ctx, toBase } from '../engine/context.js';
import { INV30, type Rng, r4 } from '../engine/hash.js';
import { type Lifecycle, countAt, createdEpoch, deletedEpoch, nextChange } from '../engine/lifecycle.js';

/** Document status codes shared by invoices and bills (bills call Submitted "Open"). */
export const DRAFT = 0;
export const SUBMITTED = 1;
export const PARTLY_PAID = 2;
export const PAID = 3;
export const VOID = 4;
export const INVOICE_STATUS = ['Draft', 'Submitted', 'PartiallyPaid', 'Paid', 'Void'] as const;
export const BILL_STATUS = ['Draft', 'Open', 'PartiallyPaid', 'Paid', 'Void'] as const;

export const MAX_LINES = 4;
export const NEVER = Infinity;

/** Credit note kinds: none, allocated to its document, or unallocated (credit still to refund). */
export const CN_NONE = 0;
export const CN_ALLOCATED = 1;
export const CN_UNALLOCATED = 2;

/**
 * The state of an invoice or bill at an epoch, held in numbers (amounts in cents) in a reused object so that
 * generating, checking and aggregating documents allocates nothing. Records are built from it.
 */
export class DocState {
  index = 0;
  created = 0;
  deleted = NEVER;
  day = 0;
  dueDay = 0;
  party = 0;
  cur = 0;
  rate = 1;
  n = 0;
  readonly item = new Int32Array(MAX_LINES);
  readonly qty = new Float64Array(MAX_LINES);
  readonly unit = new Float64Array(MAX_LINES);
  readonly discPct = new Float64Array(MAX_LINES);
  readonly disc = new Float64Array(MAX_LINES);
  readonly sub = new Float64Array(MAX_LINES);
  readonly tax = new Float64Array(MAX_LINES);
  readonly subBase = new Float64Array(MAX_LINES);
  readonly taxBase = new Float64Array(MAX_LINES);
  readonly taxRate = new Int8Array(MAX_LINES);
  readonly acct = new Int8Array(MAX_LINES);
  readonly dept = new Int8Array(MAX_LINES);
  subTotal = 0;
  taxTotal = 0;
  discTotal = 0;
  total = 0;
  baseTotal = 0;
  status = SUBMITTED;
  /** Epoch from which the document is posted to the ledger (NEVER for drafts and voids). */
  postEpoch = NEVER;
  /** Epoch at which it leaves the ledger (voided or deleted). */
  endEpoch = NEVER;
  /** Latest epoch at which the status moved between draft, posted and void (0 if never). */
  statusEpoch = 0;
  cnKind = CN_NONE;
  cnSub = 0;
  cnTax = 0;
  cnDay = 0;
  cnEpoch = NEVER;
  p1 = 0;
  p1Day = 0;
  p1Epoch = NEVER;
  p2 = 0;
  p2Day = 0;
  p2Epoch = NEVER;
  /** Latest change epoch (0 if as created). */
  lastChange = 0;

  get cnTotal(): number {
    return this.cnSub + this.cnTax;
  }

  /** Allocated to the document: allocated credit note and payments. */
  get allocated(): number {
    return (
      (this.cnKind === CN_ALLOCATED ? this.cnSub + this.cnTax : 0) +
      (this.p1Epoch !== NEVER ? this.p1 : 0) +
      (this.p2Epoch !== NEVER ? this.p2 : 0)
    );
  }

  get amountDue(): number {
    return this.total - this.allocated;
  }

  get paidDay(): number {
    let d = this.p2Epoch !== NEVER ? this.p2Day : this.p1Day;
    if (this.cnKind === CN_ALLOCATED && this.cnDay > d) d = this.cnDay;
    return d;
  }
}

/** Index position to day: the business grows, so later months hold more documents (density 1 -> 2). */
export function dayOfIndex(ctx: Ctx, lc: Lifecycle, index: number, salt: number): number {
  if (index >= lc.base) return Math.max(ctx.startDay, ctx.asOfDay - (r4(ctx.hs, lc.hk, index, salt) % 7));
  const t = (index + 0.5) / lc.base;
  const x = -1 + Math.sqrt(1 + 3 * t);
  return ctx.startDay + Math.min(ctx.asOfDay - ctx.startDay, Math.floor((ctx.asOfDay - ctx.startDay + 1) * x));
}

/** Common identity: returns false when the document does not exist at `epoch` (not yet created or deleted). */
export function identify(ctx: Ctx, lc: Lifecycle, index: number, epoch: number, s: DocState): boolean {
  if (index < 0 || index >= countAt(lc, epoch)) return false;
  s.index = index;
  s.created = createdEpoch(lc, index);
  s.deleted = deletedEpoch(ctx.hs, lc, index, true, epoch);
  return true;
}

/** Sets totals and base-currency amounts after the lines are filled. */
export function totals(s: DocState): void {
  let sub = 0,
    tax = 0,
    disc = 0,
    base = 0;
  for (let l = 0; l < s.n; l++) {
    sub += s.sub[l];
    tax += s.tax[l];
    disc += s.disc[l];
    s.subBase[l] = toBase(s.sub[l], s.rate);
    s.taxBase[l] = toBase(s.tax[l], s.rate);
    base += s.subBase[l] + s.taxBase[l];
  }
  s.subTotal = sub;
  s.taxTotal = tax;
  s.discTotal = disc;
  s.total = sub + tax;
  s.baseTotal = base;
}

const SALT_CHANGE_DRAW = 0x57a7;

/**
 * Status and allocations as created (drawn from `rng`, positioned after the lines), then every change up to
 * `epoch` in order. `cnRate` is the share of paid documents settled partly by a credit note; `unallocatedCn`
 * allows credit notes still to be refunded. Changes: a draft is submitted; an unpaid document is paid, part
 * paid or voided; a part-paid one is paid off; others get a cosmetic edit.
 */
export function settle(ctx: Ctx, lc: Lifecycle, s: DocState, epoch: number, rng: Rng, cnRate: number, unallocatedCn: boolean): void {
  const { hs, asOfDay } = ctx;
  const i = s.index;
  const age = asOfDay - s.day;
  const u = rng.next() * INV30;
  const v = rng.next() * INV30;
  s.cnKind = CN_NONE;
  s.cnSub = s.cnTax = 0;
  s.cnEpoch = s.p1Epoch = s.p2Epoch = NEVER;
  s.p1 = s.p2 = 0;
  s.endEpoch = s.deleted;
  s.statusEpoch = 0;
  s.lastChange = 0;
  if (u < 0.02) s.status = DRAFT;
  else if (u < 0.05) s.status = VOID;
  else {
    const pPaid = age > 120 ? 0.93 : age > 60 ? 0.8 : age > 30 ? 0.55 : age > 7 ? 0.25 : 0.08;
    const pPart = age > 120 ? 0.03 : age > 7 ? 0.1 : 0.04;
    s.status = v < pPaid ? PAID : v < pPaid + pPart ? PARTLY_PAID : SUBMITTED;
  }
  s.postEpoch = s.status === DRAFT || s.status === VOID ? NEVER : s.created;

  if (s.status === PAID) {
    const terms = s.dueDay - s.day;
    const delay = Math.min(age, 90, Math.max(0, terms - 20 + rng.below(46)));
    let rest = s.total;
    if (s.total >= 1_000 && age >= 3 && rng.next() * INV30 < cnRate) {
      s.cnKind = CN_ALLOCATED;
      s.cnSub = Math.round(s.subTotal * (0.05 + 0.2 * rng.next() * INV30));
      s.cnTax = Math.round((s.cnSub * s.tax[0]) / (s.sub[0] || 1));
      s.cnDay = s.day + Math.floor(delay / 3);
      s.cnEpoch = s.created;
      rest -= s.cnSub + s.cnTax;
    }
    if (rest >= 200 && rng.next() * INV30 < 0.2) {
      s.p1 = Math.round(rest * (0.3 + 0.4 * rng.next() * INV30));
      s.p1Day = s.day + Math.floor(delay / 2);
      s.p1Epoch = s.created;
      s.p2 = rest - s.p1;
      s.p2Day = s.day + delay;
      s.p2Epoch = s.created;
    } else {
      s.p1 = rest;
      s.p1Day = s.day + delay;
      s.p1Epoch = s.created;
    }
    if (unallocatedCn && s.cnKind === CN_NONE && age >= 20 && rng.next() * INV30 < 0.015) {
      s.cnKind = CN_UNALLOCATED;
      s.cnSub = Math.round(s.subTotal * (0.1 + 0.4 * rng.next() * INV30));
      s.cnTax = Math.round((s.cnSub * s.tax[0]) / (s.sub[0] || 1));
      s.cnDay = Math.min(asOfDay, s.paidDay + 1 + rng.below(14));
      s.cnEpoch = s.created;
    }
  } else if (s.status === PARTLY_PAID) {
    s.p1 = partPayment(s.total, rng.next() * INV30);
    s.p1Day = s.day + rng.below(Math.min(age, 60) + 1);
    s.p1Epoch = s.created;
  }

  const last = Math.min(epoch, s.deleted - 1);
  for (let j = 0, k = nextChange(hs, lc, i, s.created, 0, last); k <= last; k = nextChange(hs, lc, i, k, ++j, last)) {
    s.lastChange = k;
    switch (s.status) {
      case DRAFT:
        s.status = SUBMITTED;
        s.postEpoch = k;
        s.statusEpoch = k;
        break;
      case SUBMITTED: {
        const w = r4(hs, lc.hk, i, SALT_CHANGE_DRAW + k) * INV30;
        if (w < 0.55) {
          s.status = PAID;
          s.p1 = s.total;
        } else if (w < 0.9) {
          s.status = PARTLY_PAID;
          s.p1 = partPayment(s.total, r4(hs, lc.hk, i, SALT_CHANGE_DRAW + 0x1000 + k) * INV30);
        } else {
          s.status = VOID;
          s.endEpoch = k;
          s.statusEpoch = k;
          break;
        }
        s.p1Day = asOfDay;
        s.p1Epoch = k;
        break;
      }
      case PARTLY_PAID:
        s.status = PAID;
        s.p2 = s.total - s.p1;
        s.p2Day = asOfDay;
        s.p2Epoch = k;
        break;
      default:
        break;
    }
  }
}

function partPayment(total: number, u: number): number {
  const p = Math.round(total * (0.2 + 0.6 * u));
  return p < 1 ? 1 : p >= total ? total - 1 : p;
}
