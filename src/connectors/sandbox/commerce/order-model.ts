import { h3s } from '../banking/kit/fast.js';
import { customerCountryIndex } from './customer-model.js';
import { OrderPayments, REFUND_SLOT } from './order-payments.js';
import { CUSTOMER_COUNTRIES } from './people.js';
import { COUNTRIES, CURRENCIES, REGIME_LIST, type Country } from './places.js';
import type { CommercePlan, LocationPlan, Ref, TaxRule } from './plan.js';
import { PF, popularProduct, REF_STRIDE, type ProductCache } from './product-model.js';

/**
 * Draw keys of an order. Each hash feeds several draws from its bits (8 to 24 bits each), which keeps an order
 * to a handful of hashes.
 */
const O = { placeTime: 0xa1, flags: 0xb2, customer: 0xc3, payment: 0xd4, line: 0x20 };
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

/**
 * Order `o` at the fetched epoch, a pure function of (seed, o, epoch). One instance is refilled for every order
 * (`fill`), with lines and payments in flat arrays: generating an order allocates only its strings. Amounts are
 * in cents. Payments are indexed 0..paymentCount-1 and carry their slot (`paySlot`).
 */
export class OrderState extends OrderPayments {
  deleted = 0;
  location!: LocationPlan;
  country: Country = 'GBR';
  /** Epoch at which the customer was deleted (the order then no longer names them), or 0. */
  customerDeleted = 0;
  /** The customer's country (CUSTOMER_COUNTRIES index) when the order needed it (online orders), else -1. */
  customerCountry = -1;
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
  closedLocal: string | null = null;
  changed = 0;
  /** Index (in the payments) of a processed, settled payment a chargeback would dispute, or -1. */
  disputable = -1;

  constructor(
    plan: CommercePlan,
    private readonly products: ProductCache,
  ) {
    super(plan);
  }

  /** Online orders close at 18:00 on the day their return window ends: one text per day, made once. */
  private readonly closedTexts: string[] = [];
  private closedOn(day: number): string {
    return (this.closedTexts[day] ??= this.at(day, 64800));
  }

  /** `totalAmount`: lines and charges (net of discounts, with tax) less refunds; payments sum to it. */
  get total(): number {
    return this.gross - this.refund;
  }

  fill(o: number): this {
    const plan = this.plan;
    const { cal } = plan;
    const state = plan.seedState;
    const moves = plan.orderMoves;
    const last = cal.days - 1;
    this.o = o;
    const created = (this.created = o < moves.base ? 0 : moves.createdAt(o));
    this.deleted = moves.deletedAt(o, created);
    const placeTime = h3s(state, o, O.placeTime);
    const flags = h3s(state, o, O.flags);
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
    this.customerCountry = -1;
    const available = plan.customersBefore(day, created);
    const customerDraw = h3s(state, o, O.customer);
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
      if (this.customer >= 0) this.customerCountry = customerCountryIndex(state, this.customer);
      const facts = ONLINE_COUNTRY[this.customer >= 0 ? this.customerCountry : 0];
      this.country = facts.country;
      currency = facts.currency;
      regimeBase = facts.regimeBase;
    }
    this.currency = currency;

    // Lines: popular products, mostly one unit, an occasional discount code on the whole order.
    const discountCode = (this.discountCode =
      ((flags >>> 16) & 255) * U8 < 0.12 ? DISCOUNT_CODES[(customerDraw >>> 24) % DISCOUNT_CODES.length] : null);
    const discountRate = discountCode === null ? 0 : Number(discountCode.slice(-2)) / 100;
    const uLines = ((flags >>> 8) & 255) * U8;
    const lineCount = (this.lineCount = online ? 1 + Math.floor(uLines * uLines * 4) : 1 + Math.floor(uLines * uLines * uLines * 3));
    const productsAvailable = plan.productsBefore(day, created);
    const facts = this.products.facts;
    let gross = 0;
    let tax = 0;
    let discount = 0;
    for (let n = 0; n < lineCount; n++) {
      const draw = h3s(state, o * 8 + n, O.line);
      const product = popularProduct(productsAvailable, (draw & 0x3fffff) / 4_194_304);
      const slot = this.products.slot(product);
      const base = slot * PF.stride;
      const variant = ((draw >>> 22) % 32) % facts[base + PF.variants];
      const giftCard = facts[base + PF.giftCard] === 1;
      const q = (draw >>> 27) / 32;
      const quantity = giftCard || q < 0.8 ? 1 : q < 0.95 ? 2 : 3;
      const unit = facts[base + PF.prices + variant * 3 + currency];
      const lineDiscount = giftCard ? 0 : Math.round(quantity * unit * discountRate);
      const net = quantity * unit - lineDiscount;
      const rule = plan.taxRules[regimeBase + facts[base + PF.taxClass]];
      let lineTax = 0;
      for (let c = 0; c < rule.rates.length; c++) {
        const amount = Math.round(net * rule.rates[c]);
        this.lineTaxes[n * 3 + c] = amount;
        lineTax += amount;
      }
      const deletedAt = facts[base + PF.deleted];
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

    // Payments: who pays, when the money is captured, and what later epochs capture or refund.
    this.takePayment(gross, h3s(state, o, O.payment));
    const latest = this.settle(lineCount);
    if (this.refundLine >= 0) this.addRefund(Math.round(this.lineTotal[this.refundLine] / this.lineQty[this.refundLine]));
    if (this.capture > changed) changed = this.capture;
    this.changed = latest > changed ? latest : changed;

    this.closedLocal = !online ? this.createdLocal : !this.pendingAtBase && day + 30 <= last ? this.closedOn(day + 30) : null;
    this.disputable = -1;
    if (created === 0) {
      for (let i = 0; i < this.paymentCount && this.disputable < 0; i++) {
        if (
          this.paySlot[i] < REFUND_SLOT &&
          plan.methods[this.payMethod[i]].def.processed &&
          this.payChanged[i] === 0 &&
          this.payStatus[i] === 'Paid'
        )
          this.disputable = i;
      }
    }
    return this;
  }
}
