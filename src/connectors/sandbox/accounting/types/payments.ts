import type { SourceRecord } from '../../../connector.js';
import { type DocState, DocState as State, NEVER } from '../core/doc-state.js';
import { loadInvoice } from '../core/invoice-state.js';
import { bankLedgerAccount, bankOfCurrency } from '../core/postings.js';
import { GBP, PM } from '../engine/chart.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { countAt, lastChange } from '../engine/lifecycle.js';
import { PaymentSchema } from '../../../../codat-model/accounting/sales.js';
import { invoiceNumber, paymentIndex } from './invoices.js';
import { currencyCode, customerRef, modifiedAt, pad, record, source } from './shared.js';

const GBP_METHODS = [
  PM.BankTransfer,
  PM.BankTransfer,
  PM.BankTransfer,
  PM.BankTransfer,
  PM.DirectDebit,
  PM.DirectDebit,
  PM.Cheque,
  PM.CreditCard,
  PM.CreditCard,
  PM.PayPal,
];
const NOTES = ['Remittance received', 'Paid in full, thank you', 'Part payment', 'Payment matched from bank feed'];

/**
 * Payments received against invoices: an invoice has up to two, in slots 2i and 2i + 1, so payments stream in
 * invoice order, each recomputed from its invoice. A payment exists while its invoice does.
 */
export function paymentRecord(ctx: Ctx, s: DocState, second: boolean, epoch: number): SourceRecord {
  const index = paymentIndex(s.index, second);
  const amount = second ? s.p2 : s.p1;
  const day = second ? s.p2Day : s.p1Day;
  const created = second ? s.p2Epoch : s.p1Epoch;
  const lc = ctx.lc.payments;
  const changed = lastChange(ctx.hs, lc, index, epoch, created);
  const h = r3(ctx.hs, lc.hk, index);
  const id = guid(ctx.seed, K.payments, index);
  const modified = modifiedAt(ctx, day, created, changed, h);
  const currency = currencyCode(s.cur);
  const date = ctx.cal.local(day);
  const method = s.cur === GBP ? GBP_METHODS[h % GBP_METHODS.length] : PM.BankTransfer;
  const note = r3(ctx.hs, lc.hk ^ changed, index) % 6;
  return record(id, modified, {
    id,
    customerRef: customerRef(ctx, s.party, s.cur),
    accountRef: ctx.accountRefs[bankLedgerAccount(bankOfCurrency(s.cur))],
    paymentMethodRef: ctx.paymentMethodRefs[method],
    totalAmount: money(amount),
    currency,
    currencyRate: s.rate,
    date,
    note: note < NOTES.length ? NOTES[note] : undefined,
    reference: `RCPT-${pad(index + 1, 7)} ${invoiceNumber(s.index)}`,
    lines: [
      {
        amount: money(amount),
        links: [{ type: 'Invoice', id: guid(ctx.seed, K.invoices, s.index), amount: -money(amount), currencyRate: s.rate }],
        allocatedOnDate: date,
      },
    ],
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.invoices, epoch);
  for (let i = 0; i < count; i++) {
    loadInvoice(ctx, i, epoch, s);
    if (s.deleted <= epoch) continue;
    if (s.p1Epoch !== NEVER) yield paymentRecord(ctx, s, false, epoch);
    if (s.p2Epoch !== NEVER) yield paymentRecord(ctx, s, true, epoch);
  }
}

export const payments = source('payments', 'Payment', PaymentSchema, generate);
