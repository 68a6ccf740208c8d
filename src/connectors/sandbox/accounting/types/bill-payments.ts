import type { SourceRecord } from '../../../connector.js';
import { loadBill } from '../core/bill-state.js';
import { type DocState, DocState as State, NEVER } from '../core/doc-state.js';
import { bankLedgerAccount, bankOfCurrency } from '../core/postings.js';
import { PM } from '../engine/chart.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { countAt, lastChange } from '../engine/lifecycle.js';
import { BillPaymentSchema } from '../../../../codat-model/accounting/purchases.js';
import { paymentIndex } from './invoices.js';
import { currencyCode, modifiedAt, pad, record, source, supplierRef } from './shared.js';

const METHODS = [
  PM.BankTransfer,
  PM.BankTransfer,
  PM.BankTransfer,
  PM.BankTransfer,
  PM.BankTransfer,
  PM.DirectDebit,
  PM.DirectDebit,
  PM.Cheque,
];

/** Payments of bills: up to two per bill, in slots 2j and 2j + 1, recomputed from the bill (see payments). */
export function billPaymentRecord(ctx: Ctx, s: DocState, second: boolean, epoch: number): SourceRecord {
  const index = paymentIndex(s.index, second);
  const amount = second ? s.p2 : s.p1;
  const day = second ? s.p2Day : s.p1Day;
  const created = second ? s.p2Epoch : s.p1Epoch;
  const lc = ctx.lc.billPayments;
  const changed = lastChange(ctx.hs, lc, index, epoch, created);
  const h = r3(ctx.hs, lc.hk, index);
  const id = guid(ctx.seed, K.billPayments, index);
  const modified = modifiedAt(ctx, day, created, changed, h);
  const date = ctx.cal.local(day);
  return record(id, modified, {
    id,
    supplierRef: supplierRef(ctx, s.party, s.cur),
    accountRef: ctx.accountRefs[bankLedgerAccount(bankOfCurrency(s.cur))],
    totalAmount: money(amount),
    currency: currencyCode(s.cur),
    currencyRate: s.rate,
    date,
    note: changed > 0 ? 'Remittance advice sent' : undefined,
    paymentMethodRef: ctx.paymentMethodRefs[METHODS[h % METHODS.length]],
    lines: [
      {
        amount: money(amount),
        links: [{ type: 'Bill', id: guid(ctx.seed, K.bills, s.index), amount: -money(amount), currencyRate: s.rate }],
        allocatedOnDate: date,
      },
    ],
    reference: `BP-${pad(index + 1, 7)}`,
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const s = new State();
  const count = countAt(ctx.lc.bills, epoch);
  for (let j = 0; j < count; j++) {
    loadBill(ctx, j, epoch, s);
    if (s.deleted <= epoch) continue;
    if (s.p1Epoch !== NEVER) yield billPaymentRecord(ctx, s, false, epoch);
    if (s.p2Epoch !== NEVER) yield billPaymentRecord(ctx, s, true, epoch);
  }
}

export const billPayments = source('billPayments', 'BillPayment', BillPaymentSchema, generate);
