import type { SourceRecord } from '../../../connector.js';
import { CN_ALLOCATED, type DocState, DocState as State, INVOICE_STATUS, NEVER, PAID, DRAFT, VOID } from '../core/doc-state.js';
import { hasSalesOrder, loadInvoice } from '../core/invoice-state.js';
import { bankLedgerAccount, bankOfCurrency } from '../core/postings.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { itemTable } from '../engine/items.js';
import { countAt } from '../engine/lifecycle.js';
import { InvoiceSchema } from '../../../../codat-model/accounting/sales.js';
import { NONE, currencyCode, customerRef, lineTracking, modifiedAt, pad, record, source } from './shared.js';

const NOTES = [
  'Thank you for your business.',
  'Payment by bank transfer please, quoting the invoice number.',
  'Goods remain our property until paid in full.',
  'Late payments may incur interest under the Late Payment Act.',
];

export const invoiceNumber = (i: number): string => `INV-${pad(i + 1, 6)}`;
export const creditNoteNumber = (i: number): string => `CN-${pad(i + 1, 6)}`;
const creditNoteLabel = (i: number): string => `Credit note ${creditNoteNumber(i)}`;
export const paymentIndex = (i: number, second: boolean): number => 2 * i + (second ? 1 : 0);

/** Sales lines of a document in state `s` (invoices, sales orders). */
export function salesLines(ctx: Ctx, s: DocState): Record<string, unknown>[] {
  const items = itemTable(ctx);
  const lines: Record<string, unknown>[] = new Array(s.n);
  for (let l = 0; l < s.n; l++) {
    const item = items.refs[s.item[l]];
    const tracking = lineTracking(ctx, s.dept[l], s.cur);
    lines[l] = {
      description: item.name,
      unitAmount: money(s.unit[l]),
      quantity: s.qty[l],
      discountAmount: money(s.disc[l]),
      discountPercentage: s.discPct[l],
      subTotal: money(s.sub[l]),
      taxAmount: money(s.tax[l]),
      totalAmount: money(s.sub[l] + s.tax[l]),
      accountRef: ctx.accountRefs[s.acct[l]],
      taxRateRef: ctx.taxRefs[s.taxRate[l]],
      itemRef: item,
      trackingCategoryRefs: tracking.refs,
      tracking: tracking.object,
      isDirectIncome: false,
    };
  }
  return lines;
}

/** Payment allocations of an invoice or bill in state `s` (credit note first, then payments). */
export function allocations(
  ctx: Ctx,
  s: DocState,
  paymentKey: number,
  creditNoteKey: number,
  creditNoteLabel: (index: number) => string,
): readonly Record<string, unknown>[] {
  if (s.p1Epoch === NEVER && s.cnKind !== CN_ALLOCATED) return NONE;
  const currency = currencyCode(s.cur);
  const list: Record<string, unknown>[] = [];
  if (s.cnKind === CN_ALLOCATED) {
    const date = ctx.cal.local(s.cnDay);
    const total = money(s.cnSub + s.cnTax);
    list.push({
      payment: {
        id: guid(ctx.seed, creditNoteKey, s.index),
        note: creditNoteLabel(s.index),
        currency,
        currencyRate: s.rate,
        paidOnDate: date,
        totalAmount: total,
      },
      allocation: { currency, currencyRate: s.rate, allocatedOnDate: date, totalAmount: total },
    });
  }
  const accountRef = ctx.accountRefs[bankLedgerAccount(bankOfCurrency(s.cur))];
  for (let k = 0; k < 2; k++) {
    const second = k === 1;
    if ((second ? s.p2Epoch : s.p1Epoch) === NEVER) continue;
    const date = ctx.cal.local(second ? s.p2Day : s.p1Day);
    const amount = money(second ? s.p2 : s.p1);
    const index = paymentIndex(s.index, second);
    list.push({
      payment: { id: guid(ctx.seed, paymentKey, index), accountRef, currency, currencyRate: s.rate, paidOnDate: date, totalAmount: amount },
      allocation: { currency, currencyRate: s.rate, allocatedOnDate: date, totalAmount: amount },
    });
  }
  return list;
}

export function invoiceRecord(ctx: Ctx, s: DocState): SourceRecord {
  const i = s.index;
  const hk = ctx.lc.invoices.hk;
  const id = guid(ctx.seed, K.invoices, i);
  const modified = modifiedAt(ctx, s.day, s.created, s.lastChange, r3(ctx.hs, hk, i));
  const posted = s.status !== DRAFT && s.status !== VOID;
  const n = r3(ctx.hs, hk ^ s.lastChange, i) % 8;
  // One literal with every property (absent ones undefined, which JSON leaves out) keeps one object shape.
  const data: Record<string, unknown> = {
    id,
    invoiceNumber: invoiceNumber(i),
    customerRef: customerRef(ctx, s.party, s.cur),
    salesOrderRefs: posted && hasSalesOrder(ctx, i) ? [{ id: guid(ctx.seed, K.salesOrders, i), dataType: 'salesOrders' }] : undefined,
    issueDate: ctx.cal.local(s.day),
    dueDate: ctx.cal.local(s.dueDay),
    paidOnDate: s.status === PAID ? ctx.cal.local(s.paidDay) : undefined,
    currency: currencyCode(s.cur),
    currencyRate: s.rate,
    lineItems: salesLines(ctx, s),
    paymentAllocations: allocations(ctx, s, K.payments, K.creditNotes, creditNoteLabel),
    withholdingTax: NONE,
    totalDiscount: money(s.discTotal),
    subTotal: money(s.subTotal),
    additionalTaxAmount: 0,
    additionalTaxPercentage: 0,
    totalTaxAmount: money(s.taxTotal),
    totalAmount: money(s.total),
    amountDue: money(s.amountDue),
    discountPercentage: 0,
    status: INVOICE_STATUS[s.status],
    note: n < NOTES.length ? NOTES[n] : undefined,
    sourceModifiedDate: modified,
  };
  return record(id, modified, data);
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.invoices, epoch);
  for (let i = 0; i < count; i++) {
    loadInvoice(ctx, i, epoch, s);
    if (s.deleted <= epoch) continue;
    yield invoiceRecord(ctx, s);
  }
}

export const invoices = source('invoices', 'Invoice', InvoiceSchema, generate);
