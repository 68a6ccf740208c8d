import type { SourceRecord } from '../../../connector.js';
import { CN_ALLOCATED, CN_NONE, type DocState, DocState as State } from '../core/doc-state.js';
import { loadInvoice } from '../core/invoice-state.js';
import { A } from '../engine/chart.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { itemTable } from '../engine/items.js';
import { countAt, lastChange } from '../engine/lifecycle.js';
import { CreditNoteSchema } from '../../../../codat-model/accounting/sales.js';
import { creditNoteNumber, invoiceNumber } from './invoices.js';
import { NONE, currencyCode, customerRef, lineTracking, modifiedAt, record, source } from './shared.js';

/**
 * Credit notes, one possible per invoice (same index): either allocated to that invoice as part of its
 * settlement (status Paid, no credit left) or raised after payment and not yet refunded (Submitted, all
 * credit remaining). Both reference the invoice; allocated ones carry the allocation.
 */
export function creditNoteRecord(ctx: Ctx, s: DocState, epoch: number): SourceRecord {
  const i = s.index;
  const lc = ctx.lc.creditNotes;
  const changed = lastChange(ctx.hs, lc, i, epoch, s.cnEpoch);
  const id = guid(ctx.seed, K.creditNotes, i);
  const modified = modifiedAt(ctx, s.cnDay, s.cnEpoch, changed, r3(ctx.hs, lc.hk, i));
  const allocated = s.cnKind === CN_ALLOCATED;
  const total = money(s.cnSub + s.cnTax);
  const currency = currencyCode(s.cur);
  const date = ctx.cal.local(s.cnDay);
  const invoiceId = guid(ctx.seed, K.invoices, i);
  const item = itemTable(ctx).refs[s.item[0]];
  const tracking = lineTracking(ctx, s.dept[0], s.cur);
  return record(id, modified, {
    id,
    creditNoteNumber: creditNoteNumber(i),
    customerRef: customerRef(ctx, s.party, s.cur),
    withholdingTax: NONE,
    totalAmount: total,
    totalDiscount: 0,
    subTotal: money(s.cnSub),
    additionalTaxAmount: 0,
    additionalTaxPercentage: 0,
    totalTaxAmount: money(s.cnTax),
    discountPercentage: 0,
    remainingCredit: allocated ? 0 : total,
    status: allocated ? 'Paid' : 'Submitted',
    issueDate: date,
    allocatedOnDate: allocated ? date : undefined,
    currency,
    currencyRate: s.rate,
    lineItems: [
      {
        description: `${allocated ? 'Discount agreed' : 'Returned goods'} on ${invoiceNumber(i)}: ${item.name}`,
        unitAmount: money(s.cnSub),
        quantity: 1,
        discountAmount: 0,
        subTotal: money(s.cnSub),
        taxAmount: money(s.cnTax),
        totalAmount: total,
        accountRef: ctx.accountRefs[A.SalesReturns],
        taxRateRef: ctx.taxRefs[s.taxRate[0]],
        itemRef: item,
        trackingCategoryRefs: tracking.refs,
        tracking: { ...tracking.object, recordRef: { id: invoiceId, dataType: 'invoices' } },
        isDirectIncome: false,
      },
    ],
    paymentAllocations: allocated
      ? [
          {
            payment: {
              id: invoiceId,
              note: `Allocated to ${invoiceNumber(i)}`,
              currency,
              currencyRate: s.rate,
              paidOnDate: date,
              totalAmount: total,
            },
            allocation: { currency, currencyRate: s.rate, allocatedOnDate: date, totalAmount: total },
          },
        ]
      : NONE,
    note: allocated ? undefined : 'Refund to be issued',
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.invoices, epoch);
  for (let i = 0; i < count; i++) {
    loadInvoice(ctx, i, epoch, s);
    if (s.deleted <= epoch || s.cnKind === CN_NONE) continue;
    yield creditNoteRecord(ctx, s, epoch);
  }
}

export const creditNotes = source('creditNotes', 'CreditNote', CreditNoteSchema, generate);
