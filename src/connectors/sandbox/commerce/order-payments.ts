import { h3s } from '../banking/kit/fast.js';
import { GIFT_DENOMINATIONS } from './catalog.js';
import { METHOD, ONLINE_CUM, pickMethod, STORE_CUM } from './payment-kinds.js';
import type { CommercePlan } from './plan.js';

export type PaymentStatus = 'Paid' | 'Authorized' | 'Pending';

/** Payment slots: the payment, a second one when a gift card covers part of the order, and a refund. */
export const PAYMENT_SLOTS = 3;
export const REFUND_SLOT = 2;

const U8 = 1 / 256;
const U16 = 1 / 65536;
/** Draw keys of an order's refund (the order's other draws are in order-model.ts). */
const R = { rare: 0xd5, refundDay: 0xf1, refundLine: 0xf2 };

/**
 * The payments of an order (the part of `OrderState` about money): who pays, when the money is captured, and
 * what later epochs capture or refund. Payments are indexed 0..paymentCount-1 and carry their slot.
 */
export class OrderPayments {
  o = 0;
  created = 0;
  day = 0;
  createdLocal = '';
  online = false;
  currency = 0;
  customer = -1;
  paymentCount = 0;
  readonly paySlot = new Int32Array(PAYMENT_SLOTS);
  readonly payMethod = new Int32Array(PAYMENT_SLOTS);
  readonly payAmount = new Float64Array(PAYMENT_SLOTS);
  readonly payStatus: PaymentStatus[] = ['Paid', 'Paid', 'Paid'];
  readonly payCreated: string[] = ['', '', ''];
  readonly payDue: string[] = ['', '', ''];
  /** Epoch of a capture by a later epoch, or 0. */
  readonly payChanged = new Int32Array(PAYMENT_SLOTS);
  /** Day the money moved (capture or refund), -1 while unpaid; its time (see `settledLocal`). */
  readonly paySettledDay = new Int32Array(PAYMENT_SLOTS);
  readonly paySettledSeconds = new Int32Array(PAYMENT_SLOTS);
  /** The epoch whose instant the money moved at (captures and refunds by later epochs), or 0. */
  readonly paySettledEpoch = new Int32Array(PAYMENT_SLOTS);
  /** Some payment was still authorised or unpaid on `asOf` (epoch 0 view). */
  pendingAtBase = false;
  /** Epoch at which a later epoch captured the pending payments, or 0. */
  capture = 0;
  /** The refunded line (one item of it), or -1. */
  refundLine = -1;
  refund = 0;
  private refundDay = -1;
  private refundEpoch = 0;

  constructor(protected readonly plan: CommercePlan) {}

  /** When payment `i`'s money moved (local time); computed on demand, as only transactions need it. */
  settledLocal(i: number): string {
    if (this.paySettledEpoch[i]) return this.plan.cal.epochLocal(this.paySettledEpoch[i]);
    return this.paySettledSeconds[i] < 0 ? this.payCreated[i] : this.at(this.paySettledDay[i], this.paySettledSeconds[i]);
  }

  /** Local time of a base event; events on the asOf day happen in its first hour (epoch k ≥ 1 is asOf + k hours). */
  protected at(day: number, seconds: number): string {
    return this.plan.cal.localTime(day, day === this.plan.cal.days - 1 ? seconds % 3600 : seconds);
  }

  /** Picks the payment method(s) for an order of `gross` cents: a gift card may cover part of it. */
  protected takePayment(gross: number, draw: number): void {
    this.paymentCount = 0;
    let method = pickMethod(this.online ? ONLINE_CUM : STORE_CUM, (draw & 0xffff) * U16);
    if (method === METHOD.bankTransfer && this.customer < 0) method = METHOD.onlineCard;
    if (method === METHOD.giftCard) {
      const card = Math.min(gross, GIFT_DENOMINATIONS[(draw >>> 16) % 3][this.currency] * 100);
      this.addPayment(0, method, card, draw);
      if (card < gross) this.addPayment(1, this.online ? METHOD.onlineCard : METHOD.card, gross - card, draw);
    } else this.addPayment(0, method, gross, draw);
  }

  private addPayment(slot: number, method: number, amount: number, draw: number): void {
    const plan = this.plan;
    const type = plan.methods[method].def.type;
    const i = this.paymentCount++;
    let settledDay = this.day;
    let seconds = -1;
    let due = this.createdLocal;
    if (this.online && plan.methods[method].def.processed) {
      // Online card payments are authorised at checkout and captured when the order ships, the next day.
      settledDay = this.day + 1;
      seconds = 36000 + ((draw >>> 16) & 255) * 112;
    } else if (type === 'Invoice') {
      settledDay = this.day + 5 + Math.floor((draw >>> 24) * U8 * 36);
      seconds = 39600;
      due = plan.cal.local(this.day + 30);
    }
    // Base orders: settled if that happened by asOf. Orders of later epochs: settled at once unless captured later.
    const paid = this.created === 0 ? settledDay < plan.cal.days : settledDay === this.day;
    this.paySlot[i] = slot;
    this.payMethod[i] = method;
    this.payAmount[i] = amount;
    this.payStatus[i] = paid ? 'Paid' : type === 'Invoice' ? 'Pending' : 'Authorized';
    this.payCreated[i] = this.createdLocal;
    this.payDue[i] = due;
    this.payChanged[i] = 0;
    this.paySettledDay[i] = paid ? settledDay : -1;
    this.paySettledSeconds[i] = seconds;
    this.paySettledEpoch[i] = 0;
  }

  /**
   * Applies later epochs: an authorised card payment is captured at the next epoch (the order ships); an
   * unpaid invoice is paid at the order's first change. After that, a change refunds one item (unless the
   * order already had a refund at epoch 0, 3% of paid orders). Sets `refundLine` when there is a refund, and
   * returns the order's latest change epoch.
   */
  protected settle(lineCount: number): number {
    const { plan, o, created } = this;
    const moves = plan.orderMoves;
    const last = plan.cal.days - 1;
    let pendingAtBase = false;
    let authorisedOnly = true;
    for (let i = 0; i < this.paymentCount; i++) {
      if (this.payStatus[i] === 'Paid') continue;
      pendingAtBase = true;
      if (this.payStatus[i] !== 'Authorized') authorisedOnly = false;
    }
    this.pendingAtBase = pendingAtBase;
    const first = moves.firstChange(o, created);
    const latest = first ? moves.changedAt(o, created) : 0;
    let capture = 0;
    if (pendingAtBase) capture = authorisedOnly ? (created + 1 <= plan.epoch ? created + 1 : 0) : first;
    this.capture = capture;
    if (capture) {
      for (let i = 0; i < this.paymentCount; i++) {
        if (this.payStatus[i] === 'Paid') continue;
        this.payStatus[i] = 'Paid';
        this.payChanged[i] = capture;
        this.paySettledDay[i] = last;
        this.paySettledEpoch[i] = capture;
      }
    }
    const state = plan.seedState;
    let refundDay = -1;
    if (!pendingAtBase && created === 0 && (h3s(state, o, R.rare) >>> 16) * U16 < 0.03) {
      const d = this.day + 2 + Math.floor((h3s(state, o, R.refundDay) & 0xffff) * U16 * 19);
      if (d <= last) refundDay = d;
    }
    const after = authorisedOnly ? capture : capture + 1;
    this.refundEpoch = refundDay >= 0 || (pendingAtBase && !capture) ? 0 : !pendingAtBase ? latest : latest >= after ? latest : 0;
    this.refundDay = refundDay;
    this.refund = 0;
    this.refundLine = refundDay >= 0 || this.refundEpoch > 0 ? h3s(state, o, R.refundLine + this.refundEpoch) % lineCount : -1;
    return latest;
  }

  /** Adds the refund payment (negative, slot 2) of `cents`, through the method that paid last. */
  protected addRefund(cents: number): void {
    const { refundEpoch, refundDay } = this;
    this.refund = cents;
    const payer = this.payMethod[this.paymentCount - 1];
    const local = refundEpoch
      ? this.plan.cal.epochLocal(refundEpoch)
      : this.at(refundDay, 43200 + ((h3s(this.plan.seedState, this.o, R.refundDay) >>> 16) % 14400));
    const i = this.paymentCount++;
    this.paySlot[i] = REFUND_SLOT;
    this.payMethod[i] = payer === METHOD.giftCard ? METHOD.storeCredit : payer;
    this.payAmount[i] = -cents;
    this.payStatus[i] = 'Paid';
    this.payCreated[i] = local;
    this.payDue[i] = local;
    this.payChanged[i] = 0;
    this.paySettledDay[i] = refundEpoch ? this.plan.cal.days - 1 : refundDay;
    this.paySettledSeconds[i] = -1;
    this.paySettledEpoch[i] = refundEpoch;
  }
}
