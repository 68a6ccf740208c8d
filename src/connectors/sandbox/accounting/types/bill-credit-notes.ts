import type { SourceRecord } from '../../../connector.js';
import { loadBill } from '../core/bill-state.js';
import { CN_NONE, type DocState, DocState as State } from '../core/doc-state.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { itemTable } from '../engine/items.js';
import { countAt, lastChange } from '../engine/lifecycle.js';
import { BillCreditNoteSchema } from '../../../../codat-model/accounting/purchases.js';
import { billCreditNoteNumber } from './bills.js';
import { NONE, currencyCode, lineTracking, modifiedAt, record, source, supplierRef } from './shared.js';

/** Supplier credits, one possible per bill (same index), allocated to that bill as part of its settlement. */
export function billCreditNoteRecord(ctx: Ctx, s: DocState, epoch: number): SourceRecord {
  const j = s.index;
  const lc = ctx.lc.billCreditNotes;
  const changed = lastChange(ctx.hs, lc, j, epoch, s.cnEpoch);
  const id = guid(ctx.seed, K.billCreditNotes, j);
  const modified = modifiedAt(ctx, s.cnDay, s.cnEpoch, changed, r3(ctx.hs, lc.hk, j));
  const total = money(s.cnSub + s.cnTax);
  const currency = currencyCode(s.cur);
  const date = ctx.cal.local(s.cnDay);
  const billId = guid(ctx.seed, K.bills, j);
  const item = s.item[0] >= 0 ? itemTable(ctx).refs[s.item[0]] : undefined;
  const tracking = lineTracking(ctx, s.dept[0], s.cur);
  return record(id, modified, {
    id,
    billCreditNoteNumber: billCreditNoteNumber(j),
    supplierRef: supplierRef(ctx, s.party, s.cur),
    withholdingTax: NONE,
    totalAmount: total,
    totalDiscount: 0,
    subTotal: money(s.cnSub),
    totalTaxAmount: money(s.cnTax),
    discountPercentage: 0,
    remainingCredit: 0,
    status: 'Paid',
    issueDate: date,
    allocatedOnDate: date,
    currency,
    currencyRate: s.rate,
    lineItems: [
      {
        description: item ? `Credit for damaged goods: ${item.name}` : 'Credit for service shortfall',
        unitAmount: money(s.cnSub),
        quantity: 1,
        discountAmount: 0,
        subTotal: money(s.cnSub),
        taxAmount: money(s.cnTax),
        totalAmount: total,
        accountRef: ctx.accountRefs[s.acct[0]],
        taxRateRef: ctx.taxRefs[s.taxRate[0]],
        itemRef: item,
        createdFromLineRef: { id: billId, dataType: 'bills', lineNumber: '1' },
        trackingCategoryRefs: tracking.refs,
        tracking: tracking.object,
      },
    ],
    paymentAllocations: [
      {
        payment: { id: billId, note: 'Allocated to bill', currency, currencyRate: s.rate, paidOnDate: date, totalAmount: total },
        allocation: { currency, currencyRate: s.rate, allocatedOnDate: date, totalAmount: total },
      },
    ],
    createdFromRefs: [{ id: billId, dataType: 'bills' }],
    note: changed > 0 ? 'Credit confirmed by supplier' : undefined,
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.bills, epoch);
  for (let j = 0; j < count; j++) {
    loadBill(ctx, j, epoch, s);
    if (s.deleted <= epoch || s.cnKind === CN_NONE) continue;
    yield billCreditNoteRecord(ctx, s, epoch);
  }
}

export const billCreditNotes = source('billCreditNotes', 'BillCreditNote', BillCreditNoteSchema, generate);
