import type { SourceRecord } from '../../../connector.js';
import { DRAFT, type DocState, DocState as State, VOID } from '../core/doc-state.js';
import { hasSalesOrder, loadInvoice } from '../core/invoice-state.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { countAt, lastChange } from '../engine/lifecycle.js';
import { address, domainOf, email, partyName, person, phone } from '../engine/parties.js';
import { SalesOrderSchema } from '../../../../codat-model/accounting/sales.js';
import { salesLines } from './invoices.js';
import { currencyCode, customerRef, modifiedAt, pad, record, source } from './shared.js';

/**
 * Sales orders: about a quarter of invoices were raised from one (same index). The order is Closed and
 * Invoiced once its invoice is posted, Open and NotInvoiced while the invoice is a draft, Void with it.
 */
export function salesOrderRecord(ctx: Ctx, s: DocState, epoch: number): SourceRecord {
  const i = s.index;
  const lc = ctx.lc.salesOrders;
  const h = r3(ctx.hs, lc.hk, i);
  const day = Math.max(ctx.startDay, s.day - 1 - (h % 10));
  const changed = Math.max(s.statusEpoch, lastChange(ctx.hs, lc, i, epoch, s.created));
  const id = guid(ctx.seed, K.salesOrders, i);
  const modified = modifiedAt(ctx, day, s.created, changed, h);
  const hk = ctx.lc.customers.hk;
  const contact = person(ctx.hs, hk, s.party, 0);
  const name = partyName(ctx.hs, hk, s.party, s.cur);
  const status = s.status === DRAFT ? 'Open' : s.status === VOID ? 'Void' : 'Closed';
  return record(id, modified, {
    id,
    salesOrderNumber: `SO-${pad(i + 1, 6)}`,
    customerPurchaseOrderNumber: `PO${pad((h >>> 8) % 1_000_000, 6)}`,
    customerRef: customerRef(ctx, s.party, s.cur),
    issueDate: ctx.cal.local(day),
    expectedDeliveryDate: ctx.cal.local(s.day + (h % 4)),
    status,
    invoicingStatus: status === 'Closed' ? 'Invoiced' : 'NotInvoiced',
    currency: currencyCode(s.cur),
    currencyRate: s.rate,
    lineItems: salesLines(ctx, s),
    shipTo: {
      contact: { name: contact.name, email: email(contact, domainOf(name, s.cur)), phone: phone(ctx.hs, hk, s.party, 0, s.cur) },
      address: { type: 'Delivery', ...address(ctx.hs, hk, s.party, 1, s.cur) },
    },
    totalDiscount: money(s.discTotal),
    subTotal: money(s.subTotal),
    totalTaxAmount: money(s.taxTotal),
    totalAmount: money(s.total),
    note: (h >>> 4) % 5 === 0 ? 'Deliver to goods-in, weekdays 8am-4pm' : undefined,
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.invoices, epoch);
  for (let i = 0; i < count; i++) {
    if (!hasSalesOrder(ctx, i)) continue;
    loadInvoice(ctx, i, epoch, s);
    if (s.deleted <= epoch) continue;
    yield salesOrderRecord(ctx, s, epoch);
  }
}

export const salesOrders = source('salesOrders', 'SalesOrder', SalesOrderSchema, generate);
