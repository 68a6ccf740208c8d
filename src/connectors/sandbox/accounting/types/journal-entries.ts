import type { SourceRecord } from '../../../connector.js';
import { loadBill } from '../core/bill-state.js';
import { CashState, loadDirectCost, loadDirectIncome } from '../core/cash-state.js';
import { loadTransfer } from '../core/transfers.js';
import { DocState } from '../core/doc-state.js';
import { loadInvoice } from '../core/invoice-state.js';
import {
  P_BILL,
  P_BILL_PAYMENT_2,
  P_CODES,
  P_DIRECT_COST,
  P_DIRECT_INCOME,
  P_INVOICE,
  P_OPENING,
  P_PAYMENT_2,
  P_SHOP_PAYOUT,
  P_TRANSFER,
  Postings,
  cashPostings,
  documentPostings,
  openingPostings,
  shopPostings,
} from '../core/postings.js';
import { SHOP_BASE, shopSales } from '../core/shop-sales.js';
import { CORE_ACCOUNTS, GBP } from '../engine/chart.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid } from '../engine/hash.js';
import { itemTable } from '../engine/items.js';
import { countAt } from '../engine/lifecycle.js';
import { JournalEntrySchema } from '../../../../codat-model/accounting/index.js';
import { billCreditNoteNumber } from './bills.js';
import { creditNoteNumber, invoiceNumber, paymentIndex } from './invoices.js';
import { currencyCode, modifiedAt, pad, record, source, shopReference } from './shared.js';

/** [data type, id key, index of the record for source s] per posting code. */
const SOURCES: readonly (readonly [string, number, (s: number) => number])[] = [
  ['invoices', K.invoices, (s) => s],
  ['creditNotes', K.creditNotes, (s) => s],
  ['payments', K.payments, (s) => paymentIndex(s, false)],
  ['payments', K.payments, (s) => paymentIndex(s, true)],
  ['bills', K.bills, (s) => s],
  ['billCreditNotes', K.billCreditNotes, (s) => s],
  ['billPayments', K.billPayments, (s) => paymentIndex(s, false)],
  ['billPayments', K.billPayments, (s) => paymentIndex(s, true)],
  ['directCosts', K.directCosts, (s) => s],
  ['directIncomes', K.directIncomes, (s) => s],
  ['transfers', K.transfers, (s) => s],
  ['journalEntries', K.journalEntries, (s) => s * P_CODES + P_OPENING],
  ['directIncomes', K.directIncomes, (s) => s],
];

function description(p: Postings): string {
  const s = p.source;
  switch (p.code) {
    case P_INVOICE:
      return `Invoice ${invoiceNumber(s)}`;
    case P_INVOICE + 1:
      return `Credit note ${creditNoteNumber(s)}`;
    case P_INVOICE + 2:
    case P_PAYMENT_2:
      return `Payment received, ${invoiceNumber(s)}`;
    case P_BILL:
      return `Bill ${pad(s + 1, 6)}`;
    case P_BILL + 1:
      return `Supplier credit ${billCreditNoteNumber(s)}`;
    case P_BILL + 2:
    case P_BILL_PAYMENT_2:
      return `Bill payment, bill ${pad(s + 1, 6)}`;
    case P_DIRECT_COST:
      return `Direct cost DC-${pad(s + 1, 6)}`;
    case P_DIRECT_INCOME:
      return `Direct income DI-${pad(s + 1, 6)}`;
    case P_TRANSFER:
      return `Bank transfer TR-${pad(s + 1, 6)}`;
    case P_SHOP_PAYOUT:
      return `Shop sales paid in ${shopReference(s - SHOP_BASE)}`;
    default:
      return 'Opening balances';
  }
}

/** The journal entry of posting set `p` (live at the epoch). */
export function journalEntryRecord(ctx: Ctx, p: Postings, doc: DocState | undefined): SourceRecord {
  const index = p.source * P_CODES + p.code;
  const id = guid(ctx.seed, K.journalEntries, index);
  const modified = modifiedAt(ctx, p.day, p.from, 0, index);
  const [dataType, key, recordIndex] = SOURCES[p.code];
  const contactRef =
    p.party >= 0
      ? {
          id: guid(ctx.seed, p.partyIsSupplier ? K.suppliers : K.customers, p.party),
          dataType: p.partyIsSupplier ? 'suppliers' : 'customers',
        }
      : undefined;
  const items = itemTable(ctx);
  const lines: Record<string, unknown>[] = [];
  for (let k = 0; k < p.n; k++) {
    const acct = p.acct[k];
    const line = p.line[k];
    const lineCurrency = CORE_ACCOUNTS[acct].currency !== GBP ? CORE_ACCOUNTS[acct].currency : p.cur;
    const item = doc && line >= 0 && doc.item[line] >= 0 ? items.refs[doc.item[line]] : undefined;
    lines.push({
      description: item ? item.name : CORE_ACCOUNTS[acct].name,
      netAmount: money(p.base[k]),
      transactionAmount: money(p.native[k]),
      currency: 'GBP',
      transactionCurrency: currencyCode(lineCurrency),
      accountRef: ctx.accountRefs[acct],
      contactRef,
    });
  }
  return record(id, modified, {
    id,
    description: description(p),
    postedOn: ctx.cal.local(p.day),
    createdOn: modified,
    updatedOn: modified,
    journalRef: ctx.journalRefs[p.journal],
    journalLines: lines,
    recordRef: { id: guid(ctx.seed, key, recordIndex(p.source)), dataType },
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const doc = new DocState();
  const cash = new CashState();
  const p = new Postings();
  const live = () => p.from <= epoch && epoch < p.to;
  const invoices = countAt(ctx.lc.invoices, epoch);
  const bills = countAt(ctx.lc.bills, epoch);
  const costs = countAt(ctx.lc.directCosts, epoch);
  const incomes = countAt(ctx.lc.directIncomes, epoch);
  const transfers = countAt(ctx.lc.transfers, epoch);
  const n = Math.max(invoices, bills, costs, incomes, transfers, 1);
  const cashSources: [number, (c: Ctx, j: number, e: number, s: CashState) => boolean, number][] = [
    [costs, loadDirectCost, P_DIRECT_COST],
    [incomes, loadDirectIncome, P_DIRECT_INCOME],
    [transfers, loadTransfer, P_TRANSFER],
  ];
  for (let src = 0; src < n; src++) {
    if (src < invoices && loadInvoice(ctx, src, epoch, doc)) {
      for (let code = P_INVOICE; code <= P_PAYMENT_2; code++)
        if (documentPostings(doc, code, p) && live()) yield journalEntryRecord(ctx, p, doc);
    }
    if (src < bills && loadBill(ctx, src, epoch, doc)) {
      for (let code = P_BILL; code <= P_BILL_PAYMENT_2; code++)
        if (documentPostings(doc, code, p) && live()) yield journalEntryRecord(ctx, p, doc);
    }
    for (const [count, load, code] of cashSources) {
      if (src < count && load(ctx, src, epoch, cash)) {
        cashPostings(cash, code, p);
        if (live()) yield journalEntryRecord(ctx, p, undefined);
      }
    }
    if (src === 0) {
      openingPostings(ctx, p);
      yield journalEntryRecord(ctx, p, undefined);
    }
  }
  // The shop's payouts, numbered after every other source.
  for (const sale of shopSales(ctx)) {
    shopPostings(sale, p);
    if (live()) yield journalEntryRecord(ctx, p, undefined);
  }
}

export const journalEntries = source('journalEntries', 'JournalEntry', JournalEntrySchema, generate);
