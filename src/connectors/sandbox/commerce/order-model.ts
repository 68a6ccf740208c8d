import { h3, u3 } from '../banking/kit/fast.js';
import { customerCountryIndex } from './customer-model.js';
import { CUSTOMER_COUNTRIES } from './people.js';
import { GIFT_DENOMINATIONS } from './catalog.js';
import { METHOD, ONLINE_CUM, pickMethod, STORE_CUM } from './payment-kinds.js';
import { COUNTRIES, CURRENCIES, REGIME_LIST, type Country } from './places.js';
import type { CommercePlan, LocationPlan, Ref, TaxRule } from './plan.js';
import { PF, popularProduct, REF_STRIDE, type ProductCache } from './product-model.js';

/**
 * Draw keys of an order. Each hash feeds several draws from its bits (8 to 24 bits each), which keeps an order
 * to a handful of hashes.
 */
const O = { placeTime: 0xa1, flags: 0xb2, customer: 0xc3, payment: 0xd4, rare: 0xd5, line: 0x20, refundDay: 0xf1, refundLine: 0xf2 };
const U8 = 1 / 256;
const U16 = 1 / 65536;
const U24 = 1 / 16_777_216;

/** Currency and tax regime of online orders by customer country (CUSTOMER_COUNTRIES order). */
const ONLINE_COUNTRY = CUSTOMER_COUNTRIES.map(([country]) => ({
  country,
  currency: CURRENCIES.indexOf(COUNTRIES[country].currency),
  regimeBase: REGIME_LIST.indexOf(COUNTRIES[country].regime) * 4,
}));

export const DISCOUNT_CODES = ['WELCOME10', 'SPRING15', 'SUMMER20', 'FRIENDS15', 'LOYALTY10'];
const SHIPPING = { standard: [395, 595, 495], express: [695, 995, 795], freeOver: [5000, 7500, 6000] };
export const MAX_LINES = 4;
/** Payment slots: the payment, a second one when a gift card covers part of the order, and a refund. */
export const PAYMENT_SLOTS = 3;
export const REFUND_SLOT = 2;

export type PaymentStatus = 'Paid' | 'Authorized' | 'Pending';

/**
 * Order `o` at the fetched epoch, a pure function of (seed, o, epoch). One instance is refilled for every order
 * (`fill`), with lines and payments in flat arrays: generating an order allocates only its strings. Amounts are
 * in cents. Payments are indexed 0..paymentCount-1 and carry their slot (`paySlot`).
 */
export class OrderState {
  o = 0;
  created = 0;
  deleted = 0;
  day = 0;
  createdLocal = '';
  online = false;
  location!: LocationPlan;
  currency = 0;
  country: Country = 'GBR';
  customer = -1;
  /** Epoch at which the customer was deleted (the order then no longer names them), or 0. */
  customerDeleted = 0;
  discountCode: string | null = null;
  lineCount = 0;
  readonly lineProduct = new Int32Array(MAX_LINES);
  readonly lineVariant = new Int32Array(MAX_LINES);
  readonly lineQty = new Int32Array(MAX_LINES);
  readonly lineUnit = new Float64Array(MAX_LINES);
  readonly lineDiscount = new Float64Array(MAX_LINES);
  readonly lineTax = new Float64Array(MAX_LINES);
  readonly lineTotal = new Float64Array(MAX_LINES);
  /** Tax per component (up to three per rule) of each line, at `line × 3 + component`. */
  readonly lineTaxes = new Float64Array(MAX_LINES * 3);
  readonly lineRule: TaxRule[] = new Array(MAX_LINES);
  /** `{id, name}` of each line's product and variant (copied out of the cache, which later lines may evict). */
  readonly lineProductRef: Readonly<Ref>[] = new Array(MAX_LINES);
  readonly lineVariantRef: Readonly<Ref>[] = new Array(MAX_LINES);
  /** 0 once the product was deleted: the line keeps its amounts but loses its product references. */
  readonly lineLinked = new Uint8Array(MAX_LINES);
  shipFee = 0;
  shipExpress = false;
  shipRule!: TaxRule;
  readonly shipTaxes = new Float64Array(3);
  shipTax = 0;
  gross = 0;
  tax = 0;
  discount = 0;
  refund = 0;
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
  closedLocal: string | null = null;
  changed = 0;
  /** Index (in the payments) of a processed, settled payment a chargeback would dispute, or -1. */
  disputable = -1;

  constructor(
    private readonly plan: CommercePlan,
    private readonly products: ProductCache,
  ) {}

  /** `totalAmount`: lines and charges (net of discounts, with tax) less refunds; payments sum to it. */
  get total(): number {
    return this.gross - this.refund;
  }

  /** When payment `i`'s money moved (local time); computed on demand, as only transactions need it. */
  settledLocal(i: number): string {
    if (this.paySettledEpoch[i]) return this.plan.cal.epochLocal(this.paySettledEpoch[i]);
    return this.paySettledSeconds[i] < 0 ? this.payCreated[i] : this.at(this.paySettledDay[i], this.paySettledSeconds[i]);
  }

  /** Local time of a base event; events on the asOf day happen in its first hour (epoch k ≥ 1 is asOf + k hours). */
  private at(day: number, seconds: number): string {
    return this.plan.cal.localTime(day, day === this.plan.cal.days - 1 ? seconds % 3600 : seconds);
  }

  private addPayment(slot: number, method: number, amount: number, draw: number): void {
    const plan = this.plan;
    const type = plan.methods[method].def.type;
    const i = this.paymentCount++;
    let settledDay = this.day;
    let seconds = -1;
    let due = this.createdLocal;
    if (this.online && (type === 'OnlineCard' || type === 'Mobile')) {
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

  fill(o: number): this {
    const plan = this.plan;
    const { seed, cal } = plan;
    const moves = plan.orderMoves;
    const last = cal.days - 1;
    this.o = o;
    const created = (this.created = o < moves.base ? 0 : moves.createdAt(o));
    this.deleted = moves.deletedAt(o, created);
    const placeTime = h3(seed, o, O.placeTime);
    const flags = h3(seed, o, O.flags);
    const location = (this.location = plan.locationFor(created, (placeTime & 0xffff) * U16));
    const online = (this.online = location.def.kind === 'online');
    let day = last;
    if (created === 0) {
      const t = ((o + (placeTime >>> 16) * U16) * cal.days) / moves.base;
      day = Math.floor(t);
      this.day = day;
      this.createdLocal = this.at(day, online ? Math.floor((t - day) * 86400) : 28800 + Math.floor((t - day) * 46800));
    } else {
      this.day = day;
      this.createdLocal = plan.appendedLocal(created, 0x0d, o);
    }

    // Customer: most online orders have an account; in store, loyalty members only. Early customers reorder most.
    let changed = 0;
    this.customer = -1;
    this.customerDeleted = 0;
    const available = plan.customersBefore(day, created);
    const customerDraw = h3(seed, o, O.customer);
    if (available > 0 && (flags & 255) * U8 < (online ? 0.92 : 0.3)) {
      const u = (customerDraw & 0xffffff) * U24;
      this.customer = Math.min(available - 1, Math.floor(available * u * u));
      this.customerDeleted = plan.customerMoves.deletedAt(this.customer);
      if (this.customerDeleted > created) changed = this.customerDeleted;
    }
    let currency = location.currency;
    let regimeBase = location.regimeBase;
    this.country = location.def.country;
    if (online) {
      // Online orders are priced and taxed for the customer's country (guests: the UK).
      const facts = ONLINE_COUNTRY[this.customer >= 0 ? customerCountryIndex(seed, this.customer) : 0];
      this.country = facts.country;
      currency = facts.currency;
      regimeBase = facts.regimeBase;
    }
    this.currency = currency;

    // Lines: popular products, mostly one unit, an occasional discount code on the whole order.
    const discountCode = (this.discountCode = ((flags >>> 16) & 255) * U8 < 0.12 ? DISCOUNT_CODES[(customerDraw >>> 24) % DISCOUNT_CODES.length] : null);
    const discountRate = discountCode === null ? 0 : Number(discountCode.slice(-2)) / 100;
    const uLines = ((flags >>> 8) & 255) * U8;
    const lineCount = (this.lineCount = online ? 1 + Math.floor(uLines * uLines * 4) : 1 + Math.floor(uLines * uLines * uLines * 3));
    const productsAvailable = plan.productsBefore(day, created);
    const ints = this.products.ints;
    let gross = 0;
    let tax = 0;
    let discount = 0;
    for (let n = 0; n < lineCount; n++) {
      const draw = h3(seed, o * 8 + n, O.line);
      const product = popularProduct(productsAvailable, (draw & 0x3fffff) / 4_194_304);
      const slot = this.products.slot(product);
      const base = slot * PF.stride;
      const variant = (draw >>> 22) % 32 % ints[base + PF.variants];
      const giftCard = ints[base + PF.giftCard] === 1;
      const q = (draw >>> 27) / 32;
      const quantity = giftCard || q < 0.8 ? 1 : q < 0.95 ? 2 : 3;
      const unit = ints[base + PF.prices + variant * 3 + currency];
      const lineDiscount = giftCard ? 0 : Math.round(quantity * unit * discountRate);
      const net = quantity * unit - lineDiscount;
      const rule = plan.taxRules[regimeBase + ints[base + PF.taxClass]];
      let lineTax = 0;
      for (let c = 0; c < rule.rates.length; c++) {
        const amount = Math.round(net * rule.rates[c]);
        this.lineTaxes[n * 3 + c] = amount;
        lineTax += amount;
      }
      const deletedAt = ints[base + PF.deleted];
      if (deletedAt > created && deletedAt > changed) changed = deletedAt;
      this.lineProduct[n] = product;
      this.lineVariant[n] = variant;
      this.lineQty[n] = quantity;
      this.lineUnit[n] = unit;
      this.lineDiscount[n] = lineDiscount;
      this.lineTax[n] = lineTax;
      this.lineTotal[n] = net + lineTax;
      this.lineRule[n] = rule;
      this.lineProductRef[n] = this.products.refs[slot * REF_STRIDE];
      this.lineVariantRef[n] = this.products.refs[slot * REF_STRIDE + 1 + variant];
      this.lineLinked[n] = deletedAt === 0 ? 1 : 0;
      gross += net + lineTax;
      tax += lineTax;
      discount += lineDiscount;
    }

    // Shipping for online orders: free over a threshold unless express.
    this.shipFee = 0;
    this.shipTax = 0;
    if (online) {
      const express = (this.shipExpress = (flags >>> 24) * U8 < 0.1);
      const fee = express ? SHIPPING.express[currency] : gross - tax >= SHIPPING.freeOver[currency] ? 0 : SHIPPING.standard[currency];
      if (fee > 0) {
        const rule = (this.shipRule = plan.taxRules[regimeBase]);
        let chargeTax = 0;
        for (let c = 0; c < rule.rates.length; c++) chargeTax += this.shipTaxes[c] = Math.round(fee * rule.rates[c]);
        this.shipFee = fee;
        this.shipTax = chargeTax;
        gross += fee + chargeTax;
        tax += chargeTax;
      }
    }
    this.gross = gross;
    this.tax = tax;
    this.discount = discount;

    // Payments: who pays and when the money is captured.
    this.paymentCount = 0;
    const paymentDraw = h3(seed, o, O.payment);
    let method = pickMethod(online ? ONLINE_CUM : STORE_CUM, (paymentDraw & 0xffff) * U16);
    if (method === METHOD.bankTransfer && this.customer < 0) method = METHOD.onlineCard;
    if (method === METHOD.giftCard) {
      const card = Math.min(gross, GIFT_DENOMINATIONS[(paymentDraw >>> 16) % 3][currency] * 100);
      this.addPayment(0, method, card, paymentDraw);
      if (card < gross) this.addPayment(1, online ? METHOD.onlineCard : METHOD.card, gross - card, paymentDraw);
    } else this.addPayment(0, method, gross, paymentDraw);
    let pendingAtBase = false;
    let authorisedOnly = true;
    for (let i = 0; i < this.paymentCount; i++) {
      if (this.payStatus[i] === 'Paid') continue;
      pendingAtBase = true;
      if (this.payStatus[i] !== 'Authorized') authorisedOnly = false;
    }

    // Later epochs: an authorised card payment is captured at the next epoch (the order ships); an unpaid
    // invoice is paid at the order's first change. After that, a change refunds one item (unless the order
    // already had a refund at epoch 0).
    const first = moves.firstChange(o, created);
    const latest = first ? moves.changedAt(o, created) : 0;
    let capture = 0;
    if (pendingAtBase) capture = authorisedOnly ? (created + 1 <= plan.epoch ? created + 1 : 0) : first;
    if (capture) {
      for (let i = 0; i < this.paymentCount; i++) {
        if (this.payStatus[i] === 'Paid') continue;
        this.payStatus[i] = 'Paid';
        this.payChanged[i] = capture;
        this.paySettledDay[i] = last;
        this.paySettledEpoch[i] = capture;
      }
      if (capture > changed) changed = capture;
    }
    const rare = h3(seed, o, O.rare);
    let refundDay = -1;
    if (!pendingAtBase && created === 0 && (rare >>> 16) * U16 < 0.03) {
      const d = day + 2 + Math.floor(u3(seed, o, O.refundDay) * 19);
      if (d <= last) refundDay = d;
    }
    const refundEpoch = refundDay >= 0 ? 0 : !pendingAtBase ? latest : !capture ? 0 : authorisedOnly ? (latest >= capture ? latest : 0) : latest > capture ? latest : 0;
    this.refund = 0;
    if (refundDay >= 0 || refundEpoch > 0) {
      const line = h3(seed, o, O.refundLine + refundEpoch) % lineCount;
      this.refund = Math.round(this.lineTotal[line] / this.lineQty[line]);
      const payer = this.payMethod[this.paymentCount - 1];
      const local = refundEpoch ? cal.epochLocal(refundEpoch) : this.at(refundDay, 43200 + Math.floor(u3(seed, o, O.refundDay) * 14400));
      const i = this.paymentCount++;
      this.paySlot[i] = REFUND_SLOT;
      this.payMethod[i] = payer === METHOD.giftCard ? METHOD.storeCredit : payer;
      this.payAmount[i] = -this.refund;
      this.payStatus[i] = 'Paid';
      this.payCreated[i] = local;
      this.payDue[i] = local;
      this.payChanged[i] = 0;
      this.paySettledDay[i] = refundEpoch ? last : refundDay;
      this.paySettledSeconds[i] = -1;
      this.paySettledEpoch[i] = refundEpoch;
    }
    this.changed = latest > changed ? latest : changed;

    this.closedLocal = !online ? this.createdLocal : !pendingAtBase && day + 30 <= last ? this.at(day + 30, 64800) : null;
    this.disputable = -1;
    if (created === 0) {
      for (let i = 0; i < this.paymentCount && this.disputable < 0; i++) {
        if (this.paySlot[i] < REFUND_SLOT && plan.methods[this.payMethod[i]].def.processed && this.payChanged[i] === 0 && this.payStatus[i] === 'Paid') this.disputable = i;
      }
    }
    return this;
  }
}

