import type { SourceRecord } from '../../../connector.js';
import { hasPurchaseOrder, loadBill } from '../core/bill-state.js';
import { BILL_STATUS, type DocState, DocState as State, PAID } from '../core/doc-state.js';
import { A, CORE_ACCOUNTS } from '../engine/chart.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { itemTable, itemUnit } from '../engine/items.js';
import { countAt } from '../engine/lifecycle.js';
import { BillSchema } from '../../../../codat-model/accounting/purchases.js';
import { allocations } from './invoices.js';
import { MONTH_NAMES, NONE, currencyCode, lineTracking, modifiedAt, pad, record, source, supplierRef } from './shared.js';

export const billCreditNoteNumber = (j: number): string => `BCN-${pad(j + 1, 6)}`;
export const purchaseOrderNumber = (j: number): string => `PO-${pad(j + 1, 6)}`;
const creditNoteLabel = (j: number): string => `Supplier credit ${billCreditNoteNumber(j)}`;

/** Lines of a bill, or of the purchase order it came from; `poId` links bill lines to the order's lines. */
export function purchaseLines(ctx: Ctx, s: DocState, poId: string | undefined): Record<string, unknown>[] {
  const items = itemTable(ctx);
  const d = new Date(s.day * 86_400_000);
  const period = `${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  const lines: Record<string, unknown>[] = [];
  for (let l = 0; l < s.n; l++) {
    const k = s.item[l];
    const acct = s.acct[l];
    const item = k >= 0 ? items.refs[k] : undefined;
    const tracking = lineTracking(ctx, s.dept[l], s.cur);
    const lineNumber = String(l + 1);
    lines.push({
      lineNumber,
      description: item
        ? item.name
        : acct === A.Subcontractors
          ? `Subcontracted work, ${period}`
          : acct === A.Freight
            ? `Carriage, ${period}`
            : `${CORE_ACCOUNTS[acct].name}, ${period}`,
      unitAmount: money(s.unit[l]),
      quantity: s.qty[l],
      unitOfMeasurement: k >= 0 ? itemUnit(k) : undefined,
      discountAmount: 0,
      discountPercentage: 0,
      subTotal: money(s.sub[l]),
      taxAmount: money(s.tax[l]),
      totalAmount: money(s.sub[l] + s.tax[l]),
      accountRef: ctx.accountRefs[acct],
      taxRateRef: ctx.taxRefs[s.taxRate[l]],
      itemRef: item,
      purchaseOrderLineRef: poId ? { id: poId, dataType: 'purchaseOrders', lineNumber } : undefined,
      trackingCategoryRefs: tracking.refs,
      tracking: tracking.object,
      isDirectCost: false,
    });
  }
  return lines;
}

export function billRecord(ctx: Ctx, s: DocState): SourceRecord {
  const j = s.index;
  const hk = ctx.lc.bills.hk;
  const h = r3(ctx.hs, hk, j);
  const id = guid(ctx.seed, K.bills, j);
  const modified = modifiedAt(ctx, s.day, s.created, s.lastChange, h);
  const poId = hasPurchaseOrder(ctx, s) ? guid(ctx.seed, K.purchaseOrders, j) : undefined;
  return record(id, modified, {
    id,
    reference: `${String.fromCharCode(65 + (s.party % 26), 65 + ((s.party >>> 5) % 26))}-${pad((h >>> 6) % 100_000, 5)}`,
    supplierRef: supplierRef(ctx, s.party, s.cur),
    purchaseOrderRefs: poId ? [{ id: poId, purchaseOrderNumber: purchaseOrderNumber(j) }] : undefined,
    issueDate: ctx.cal.local(s.day),
    dueDate: ctx.cal.local(s.dueDay),
    currency: currencyCode(s.cur),
    currencyRate: s.rate,
    lineItems: purchaseLines(ctx, s, poId),
    withholdingTax: NONE,
    status: BILL_STATUS[s.status],
    subTotal: money(s.subTotal),
    taxAmount: money(s.taxTotal),
    totalAmount: money(s.total),
    amountDue: money(s.amountDue),
    note: s.status === PAID && s.lastChange > 0 ? 'Settled' : undefined,
    paymentAllocations: allocations(ctx, s, K.billPayments, K.billCreditNotes, creditNoteLabel),
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.bills, epoch);
  for (let j = 0; j < count; j++) {
    loadBill(ctx, j, epoch, s);
    if (s.deleted <= epoch) continue;
    yield billRecord(ctx, s);
  }
}

export const bills = source('bills', 'Bill', BillSchema, generate);
