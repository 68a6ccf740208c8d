import type { SourceRecord } from '../../../connector.js';
import { hasItemReceipt, hasPurchaseOrder, loadBill } from '../core/bill-state.js';
import { DRAFT, type DocState, DocState as State, VOID } from '../core/doc-state.js';
import { companyIdentity, staff } from '../engine/company.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { itemTable, itemUnit } from '../engine/items.js';
import { countAt, lastChange } from '../engine/lifecycle.js';
import { ItemReceiptSchema, PurchaseOrderSchema } from '../../../../codat-model/accounting/purchases.js';
import { purchaseLines, purchaseOrderNumber } from './bills.js';
import { currencyCode, modifiedAt, pad, record, source, supplierRef } from './shared.js';

/**
 * Purchase orders (about 40 % of bills, those buying goods, came from one; same index) and item receipts
 * (half of those orders were receipted before the bill). An order is Closed once its bill is posted, Open
 * while the bill is a draft, Void with it.
 */
function orderDay(ctx: Ctx, s: DocState): number {
  return Math.max(ctx.startDay, s.day - 5 - (r3(ctx.hs, ctx.lc.purchaseOrders.hk, s.index) % 16));
}

export function purchaseOrderRecord(ctx: Ctx, s: DocState, epoch: number): SourceRecord {
  const j = s.index;
  const lc = ctx.lc.purchaseOrders;
  const h = r3(ctx.hs, lc.hk, j);
  const day = orderDay(ctx, s);
  const changed = Math.max(s.statusEpoch, lastChange(ctx.hs, lc, j, epoch, s.created));
  const id = guid(ctx.seed, K.purchaseOrders, j);
  const modified = modifiedAt(ctx, day, s.created, changed, h);
  const status = s.status === DRAFT ? 'Open' : s.status === VOID ? 'Void' : 'Closed';
  const buyer = staff(ctx, h);
  const company = companyIdentity(ctx);
  return record(id, modified, {
    id,
    purchaseOrderNumber: purchaseOrderNumber(j),
    supplierRef: supplierRef(ctx, s.party, s.cur),
    createdBy: { firstName: buyer.first, lastName: buyer.last, email: buyer.email },
    issueDate: ctx.cal.local(day),
    expectedDeliveryDate: ctx.cal.local(day + 7),
    deliveryDate: status === 'Closed' ? ctx.cal.local(Math.max(day, s.day - 1)) : undefined,
    paymentDueDate: ctx.cal.local(s.dueDay),
    status,
    currency: currencyCode(s.cur),
    currencyRate: s.rate,
    lineItems: purchaseLines(ctx, s, undefined),
    shipTo: {
      contact: { name: `${buyer.first} ${buyer.last}`, email: buyer.email, phone: company.phone },
      address: { type: 'Delivery', ...company.address },
    },
    totalDiscount: 0,
    subTotal: money(s.subTotal),
    totalTaxAmount: money(s.taxTotal),
    totalAmount: money(s.total),
    note: changed > 0 ? 'Delivery date confirmed' : undefined,
    sourceModifiedDate: modified,
  });
}

export function itemReceiptRecord(ctx: Ctx, s: DocState, epoch: number): SourceRecord {
  const j = s.index;
  const lc = ctx.lc.itemReceipts;
  const h = r3(ctx.hs, lc.hk, j);
  const poDay = orderDay(ctx, s);
  const day = Math.min(s.day, poDay + 2 + (h % 5));
  const changed = Math.max(s.status === VOID ? s.statusEpoch : 0, lastChange(ctx.hs, lc, j, epoch, s.created));
  const id = guid(ctx.seed, K.itemReceipts, j);
  const modified = modifiedAt(ctx, day, s.created, changed, h);
  const poId = guid(ctx.seed, K.purchaseOrders, j);
  const items = itemTable(ctx);
  const supplier = supplierRef(ctx, s.party, s.cur);
  const lines: Record<string, unknown>[] = [];
  let sub = 0,
    total = 0;
  for (let l = 0; l < s.n; l++) {
    const k = s.item[l];
    if (k < 0) continue;
    sub += s.sub[l];
    total += s.sub[l] + s.tax[l];
    const lineNumber = String(l + 1);
    lines.push({
      lineNumber,
      description: items.refs[k].name,
      unitAmount: money(s.unit[l]),
      quantity: s.qty[l],
      unitOfMeasurement: itemUnit(k),
      subTotal: money(s.sub[l]),
      totalAmount: money(s.sub[l] + s.tax[l]),
      accountRef: ctx.accountRefs[s.acct[l]],
      itemRef: items.refs[k],
      purchaseOrderLineRef: { id: poId, dataType: 'purchaseOrders', lineNumber },
      tracking: { recordRefs: [{ id: supplier.id, dataType: 'suppliers' }] },
    });
  }
  return record(id, modified, {
    id,
    reference: `GRN-${pad(j + 1, 6)}`,
    supplierRef: supplier,
    purchaseOrderRefs: [{ id: poId, purchaseOrderNumber: purchaseOrderNumber(j) }],
    receivedDate: ctx.cal.local(day),
    status: s.status === VOID ? 'Void' : 'Received',
    currency: currencyCode(s.cur),
    currencyRate: s.rate,
    lineItems: lines,
    subTotal: money(sub),
    totalAmount: money(total),
    note: (h >>> 3) % 4 === 0 ? 'Checked in by warehouse' : undefined,
    sourceModifiedDate: modified,
  });
}

function* generateOrders(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.bills, epoch);
  for (let j = 0; j < count; j++) {
    loadBill(ctx, j, epoch, s);
    if (s.deleted <= epoch || !hasPurchaseOrder(ctx, s)) continue;
    yield purchaseOrderRecord(ctx, s, epoch);
  }
}

function* generateReceipts(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.bills, epoch);
  for (let j = 0; j < count; j++) {
    if (!hasItemReceipt(ctx, j)) continue;
    loadBill(ctx, j, epoch, s);
    if (s.deleted <= epoch || !hasPurchaseOrder(ctx, s)) continue;
    yield itemReceiptRecord(ctx, s, epoch);
  }
}

export const purchaseOrders = source('purchaseOrders', 'PurchaseOrder', PurchaseOrderSchema, generateOrders);
export const itemReceipts = source('itemReceipts', 'ItemReceipt', ItemReceiptSchema, generateReceipts);
