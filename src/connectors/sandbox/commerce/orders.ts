import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { customerName } from './customer-model.js';
import { OrderState } from './order-model.js';
import { CURRENCIES } from './places.js';
import { CommercePlan, type Ref, type TaxRule } from './plan.js';
import { ProductCache } from './product-model.js';
import { CommerceOrder } from '../../../codat-model/commerce/schemas.js';

type Allocation = { taxComponentRef: Readonly<Ref>; rate: number };

/** Shared empty arrays (frozen) for lines without discounts and orders without charges. */
const NONE: readonly never[] = Object.freeze([]);
const LINE_SUFFIX = ['-1', '-2', '-3', '-4'];

/** Tax allocations of a line or charge. `rate` carries the tax amount, as the OAS describes the field. */
function allocations(rule: TaxRule, taxes: Float64Array, offset: number): readonly Allocation[] {
  const n = rule.refs.length;
  if (n === 0) return NONE;
  const out: Allocation[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = { taxComponentRef: rule.refs[i], rate: taxes[offset + i] / 100 };
  return out;
}

function lineItem(orderId: string, order: OrderState, n: number): Record<string, unknown> {
  const id = orderId + LINE_SUFFIX[n];
  const rule = order.lineRule[n];
  const taxes = allocations(rule, order.lineTaxes, n * 3);
  const discounts = order.lineDiscount[n] ? [{ name: order.discountCode!, totalAmount: order.lineDiscount[n] / 100 }] : NONE;
  // Two literal shapes rather than deleting keys: a deleted product's line keeps its amounts, not its refs.
  return order.lineLinked[n]
    ? {
        id,
        quantity: order.lineQty[n],
        taxPercentage: rule.percentage,
        totalAmount: order.lineTotal[n] / 100,
        totalTaxAmount: order.lineTax[n] / 100,
        unitPrice: order.lineUnit[n] / 100,
        taxes,
        productRef: order.lineProductRef[n],
        productVariantRef: order.lineVariantRef[n],
        discountAllocations: discounts,
      }
    : {
        id,
        quantity: order.lineQty[n],
        taxPercentage: rule.percentage,
        totalAmount: order.lineTotal[n] / 100,
        totalTaxAmount: order.lineTax[n] / 100,
        unitPrice: order.lineUnit[n] / 100,
        taxes,
        discountAllocations: discounts,
      };
}

function serviceCharges(order: OrderState): readonly Record<string, unknown>[] {
  if (!order.shipFee) return NONE;
  return [
    {
      description: order.shipExpress ? 'Express shipping' : 'Standard shipping',
      totalAmount: (order.shipFee + order.shipTax) / 100,
      taxPercentage: order.shipRule.percentage,
      taxAmount: order.shipTax / 100,
      taxes: allocations(order.shipRule, order.shipTaxes, 0),
      quantity: 1,
      type: 'Shipping',
    },
  ];
}

export interface PaymentRefData {
  id: string;
  amount: number;
  currency: string;
  type: string;
  status: string;
  paymentProvider?: string;
  dueDate: string;
  createdDate: string;
}

/** Payment `i` of an order as the order embeds it (`payments[]`): same id and values as its commerce-payments record. */
export function paymentRef(plan: CommercePlan, order: OrderState, orderId: string, i: number): PaymentRefData {
  const method = plan.methods[order.payMethod[i]].def;
  const id = orderId + PAYMENT_SUFFIX[order.paySlot[i]];
  const currency = CURRENCIES[order.currency];
  const amount = order.payAmount[i] / 100;
  return method.provider === undefined
    ? { id, amount, currency, type: method.type, status: order.payStatus[i], dueDate: order.payDue[i], createdDate: order.payCreated[i] }
    : {
        id,
        amount,
        currency,
        type: method.type,
        status: order.payStatus[i],
        paymentProvider: method.provider,
        dueDate: order.payDue[i],
        createdDate: order.payCreated[i],
      };
}

/**
 * A payment's id is its order's id plus its slot (`-p1`, `-p2`, refund `-r1`): payments stream in order then slot
 * order, and every payment visibly belongs to its order (the Payment schema has no order reference).
 */
export const PAYMENT_SUFFIX = ['-p1', '-p2', '-r1'];

export function paymentId(plan: CommercePlan, o: number, slot: number): string {
  return plan.ids.orders.of(o) + PAYMENT_SUFFIX[slot];
}

const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let numberBlock = -1;
let numberPrefix = '';

/** `100001 + o` as text; consecutive orders share the prefix, so only three digits are appended each time. */
function orderNumber(o: number): string {
  const n = 100_001 + o;
  const block = Math.floor(n / 1000);
  if (block !== numberBlock) {
    numberBlock = block;
    numberPrefix = String(block);
  }
  return numberPrefix + THREE_DIGITS[n - block * 1000];
}

export function orderRecord(plan: CommercePlan, order: OrderState): SourceRecord {
  const id = plan.ids.orders.of(order.o);
  const modified = order.changed ? plan.cal.epochStamp(order.changed) : `${order.createdLocal}Z`;
  const lines = new Array(order.lineCount);
  for (let n = 0; n < order.lineCount; n++) lines[n] = lineItem(id, order, n);
  const payments = new Array(order.paymentCount);
  for (let i = 0; i < order.paymentCount; i++) payments[i] = paymentRef(plan, order, id, i);
  const data: Record<string, unknown> = {
    id,
    orderNumber: orderNumber(order.o),
    country: order.country,
    currency: CURRENCIES[order.currency],
    totalAmount: order.total / 100,
    totalRefund: order.refund ? -order.refund / 100 : 0,
    totalTaxAmount: order.tax / 100,
    totalDiscount: order.discount / 100,
    totalGratuity: 0,
    orderLineItems: lines,
    payments,
    serviceCharges: serviceCharges(order),
    locationRef: order.location.ref,
    createdDate: order.createdLocal,
    sourceModifiedDate: modified,
  };
  // Added only when present (absent rather than null: neither is nullable in the OAS).
  if (order.closedLocal !== null) data.closedDate = order.closedLocal;
  if (order.customer >= 0 && order.customerDeleted === 0) {
    const name =
      order.customerCountry >= 0
        ? customerName(plan.seedState, order.customer, order.customerCountry)
        : customerName(plan.seedState, order.customer);
    data.customerRef = { id: plan.ids.customers.of(order.customer), name };
  }
  return { id, sourceModifiedDate: modified, data };
}

/**
 * Orders in creation (date) order. Totals: each line's `totalAmount` is quantity × unit price less its
 * discount plus its tax; the order's `totalAmount` is its lines plus shipping less refunds, and its payments
 * (including a negative refund payment) sum to it.
 */
function* orders(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  const order = new OrderState(plan, new ProductCache(plan));
  const total = plan.orderMoves.total;
  for (let o = 0; o < total; o++) {
    if (order.fill(o).deleted) continue;
    yield orderRecord(plan, order);
  }
}

export const commerceOrders: GeneratedSource = {
  dataType: 'commerce-orders',
  typeName: 'Order',
  schema: CommerceOrder,
  fetch: orders,
};
