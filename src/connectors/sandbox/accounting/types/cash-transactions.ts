import type { SourceRecord } from '../../../connector.js';
import { loadBill } from '../core/bill-state.js';
import { CashState, loadDirectCost, loadDirectIncome } from '../core/cash-state.js';
import { loadTransfer } from '../core/transfers.js';
import { DocState, NEVER } from '../core/doc-state.js';
import { loadInvoice } from '../core/invoice-state.js';
import { Postings, bankOfCurrency, openingPostings } from '../core/postings.js';
import { A, B, CORE_BANKS, GBP } from '../engine/chart.js';
import { type Ctx, K, money, rateOf } from '../engine/context.js';
import { guid } from '../engine/hash.js';
import { currencyOf, partyBits, partyName } from '../engine/parties.js';
import { countAt } from '../engine/lifecycle.js';
import { AccountTransactionSchema, BankTransactionSchema } from '../../../../codat-model/accounting/index.js';
import {
  C_BILL_PAYMENT_1,
  C_DIRECT_COST,
  C_DIRECT_INCOME,
  C_OPENING,
  C_PAYMENT_1,
  C_SHOP_PAYOUT,
  C_TRANSFER_IN,
  C_TRANSFER_OUT,
  cashIndex,
} from './cash-codes.js';
import { transferDescription } from './direct.js';
import { invoiceNumber, paymentIndex } from './invoices.js';
import { currencyCode, modifiedAt, record, shopReference, source } from './shared.js';
import { SHOP_BASE, shopSales } from '../core/shop-sales.js';

/** One movement of money through a bank account, read by account and bank transactions (and the Banking Sandbox). */
export class Move {
  index = 0;
  code = 0;
  bank = 0;
  /** In the bank account's currency, cents, signed (money in positive). */
  amount = 0;
  day = 0;
  created = 0;
  cur = GBP;
  rate = 1;
  childKey = 0;
  childIndex = 0;
  childType = '';
  description = '';
  type = '';
  /** The epoch it left the books (its document deleted), or NEVER: only yielded when `deletedToo` asks. */
  deleted = NEVER;
  /** The customer or supplier paid or paying, by name; '' when it names none (a transfer, bank interest). */
  party = '';
}

/**
 * Every movement at `epoch`, in index order (`source * 16 + code`); yields the same reused object. With `deletedToo`,
 * movements whose document was deleted by then come too, `deleted` set to the epoch it was (the Banking Sandbox marks
 * what their disappearance changed).
 */
export function* moves(ctx: Ctx, epoch: number, withOpening: boolean, deletedToo = false): Generator<Move> {
  const m = new Move();
  const doc = new DocState();
  const cash = new CashState();
  const counts = {
    invoices: countAt(ctx.lc.invoices, epoch),
    bills: countAt(ctx.lc.bills, epoch),
    costs: countAt(ctx.lc.directCosts, epoch),
    incomes: countAt(ctx.lc.directIncomes, epoch),
    transfers: countAt(ctx.lc.transfers, epoch),
  };
  const n = Math.max(counts.invoices, counts.bills, counts.costs, counts.incomes, counts.transfers, 1);
  const set = (code: number, src: number, bank: number, amount: number, day: number, created: number, cur: number, rate: number) => {
    m.index = cashIndex(src, code);
    m.code = code;
    m.bank = bank;
    m.amount = amount;
    m.day = day;
    m.created = created;
    m.cur = cur;
    m.rate = rate;
    m.deleted = NEVER;
    m.party = '';
  };
  /** A customer's or supplier's name, as their records have it. */
  const nameOf = (customer: boolean, index: number) => {
    const lc = customer ? ctx.lc.customers : ctx.lc.suppliers;
    return index < 0 ? '' : partyName(ctx.hs, lc.hk, index, currencyOf(partyBits(ctx.hs, lc.hk, index), customer));
  };
  for (let src = 0; src < n; src++) {
    for (let part = 0; part < 2; part++) {
      const sales = part === 0;
      if (src >= (sales ? counts.invoices : counts.bills)) continue;
      if (sales) loadInvoice(ctx, src, epoch, doc);
      else loadBill(ctx, src, epoch, doc);
      if (doc.deleted <= epoch && !deletedToo) continue;
      for (let k = 0; k < 2; k++) {
        const epochOf = k === 0 ? doc.p1Epoch : doc.p2Epoch;
        if (epochOf === NEVER || epochOf >= doc.deleted) continue;
        const amount = k === 0 ? doc.p1 : doc.p2;
        set(
          (sales ? C_PAYMENT_1 : C_BILL_PAYMENT_1) + k,
          src,
          bankOfCurrency(doc.cur),
          sales ? amount : -amount,
          k === 0 ? doc.p1Day : doc.p2Day,
          epochOf,
          doc.cur,
          doc.rate,
        );
        m.childKey = sales ? K.payments : K.billPayments;
        m.childIndex = paymentIndex(src, k === 1);
        m.childType = sales ? 'payments' : 'billPayments';
        m.description = sales ? `Receipt ${invoiceNumber(src)}` : `Supplier payment BP-${m.childIndex + 1}`;
        m.type = sales ? 'Credit' : 'Payment';
        m.party = nameOf(sales, doc.party);
        if (doc.deleted <= epoch) m.deleted = doc.deleted;
        yield m;
      }
    }
    if (src < counts.costs && loadDirectCost(ctx, src, epoch, cash) && (cash.deleted > epoch || deletedToo)) {
      set(C_DIRECT_COST, src, cash.bank, -cash.total, cash.day, cash.created, GBP, 1);
      m.childKey = K.directCosts;
      m.childIndex = src;
      m.childType = 'directCosts';
      m.description = cash.bank === B.Card ? `Card purchase DC-${src + 1}` : `Direct payment DC-${src + 1}`;
      m.type =
        cash.acct === A.BankCharges ? 'Fee' : cash.acct === A.InterestExpense ? 'SerChg' : cash.bank === B.Card ? 'Pos' : 'DirectDebit';
      m.party = nameOf(false, cash.party);
      if (cash.deleted <= epoch) m.deleted = cash.deleted;
      yield m;
    }
    if (src < counts.incomes && loadDirectIncome(ctx, src, epoch, cash) && (cash.deleted > epoch || deletedToo)) {
      set(C_DIRECT_INCOME, src, cash.bank, cash.total, cash.day, cash.created, GBP, 1);
      m.childKey = K.directIncomes;
      m.childIndex = src;
      m.childType = 'directIncomes';
      m.description = cash.acct === A.InterestIncome ? 'Interest paid' : `Receipt DI-${src + 1}`;
      m.type = cash.acct === A.InterestIncome ? 'Int' : 'Dep';
      m.party = nameOf(true, cash.party);
      if (cash.deleted <= epoch) m.deleted = cash.deleted;
      yield m;
    }
    if (src < counts.transfers && loadTransfer(ctx, src, epoch, cash) && (cash.deleted > epoch || deletedToo)) {
      for (const code of [C_TRANSFER_OUT, C_TRANSFER_IN]) {
        const out = code === C_TRANSFER_OUT;
        const bank = out ? cash.bank : cash.toBank;
        const cur = CORE_BANKS[bank][2];
        set(code, src, bank, out ? -cash.total : cash.toTotal, cash.day, cash.created, cur, cur === GBP ? 1 : cash.rate);
        m.childKey = K.transfers;
        m.childIndex = src;
        m.childType = 'transfers';
        m.description = transferDescription(cash);
        m.type = 'Xfer';
        if (cash.deleted <= epoch) m.deleted = cash.deleted;
        yield m;
      }
    }
    if (src === 0 && withOpening) {
      const p = new Postings();
      openingPostings(ctx, p);
      let code = C_OPENING;
      for (let k = 0; k < p.n; k++) {
        const bank = CORE_BANKS.findIndex((b) => b[1] === p.acct[k]);
        if (bank < 0) continue;
        set(code++, 0, bank, p.native[k], ctx.startDay, 0, CORE_BANKS[bank][2], rateOf(ctx, CORE_BANKS[bank][2], ctx.startDay));
        m.childKey = 0;
        m.childIndex = 0;
        m.childType = '';
        m.description = 'Opening balance';
        m.type = 'Credit';
        yield m;
      }
    }
  }
  // What the shop paid in, after every other source, as it was paid (core/shop-sales.ts).
  for (const sale of shopSales(ctx)) {
    set(
      C_SHOP_PAYOUT,
      sale.source,
      bankOfCurrency(sale.currency),
      sale.amount,
      sale.day,
      0,
      sale.currency,
      sale.currency === GBP ? 1 : sale.rate,
    );
    m.childKey = K.directIncomes;
    m.childIndex = sale.source;
    m.childType = 'directIncomes';
    // A card payout comes by the processor's Bacs credit; banked takings are paid in.
    m.description = `${sale.kind === 'card' ? 'Shop payout' : 'Shop takings'} ${shopReference(sale.source - SHOP_BASE)}`;
    m.type = sale.kind === 'card' ? 'DirectDep' : 'Dep';
    yield m;
  }
}

function* bankTransactions(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  for (const m of moves(ctx, epoch, true)) {
    const id = guid(ctx.seed, K.bankTransactions, m.index);
    const modified = modifiedAt(ctx, m.day, m.created, 0, m.index);
    yield record(id, modified, {
      id,
      accountId: ctx.bankRefs[m.bank].id,
      clearedOnDate: ctx.cal.local(m.day),
      description: m.description,
      reconciled: ctx.asOfDay - m.day > 10,
      amount: money(m.amount),
      transactionType: m.type,
      sourceModifiedDate: modified,
    });
  }
}

function* accountTransactions(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  for (const m of moves(ctx, epoch, false)) {
    const id = guid(ctx.seed, K.accountTransactions, m.index);
    const modified = modifiedAt(ctx, m.day, m.created, 0, m.index);
    const childId = guid(ctx.seed, m.childKey, m.childIndex);
    const amount = money(m.amount);
    yield record(id, modified, {
      id,
      transactionId: childId,
      note: m.code === C_TRANSFER_IN ? 'Incoming side of transfer' : undefined,
      bankAccountRef: ctx.bankRefs[m.bank],
      date: ctx.cal.local(m.day),
      status: ctx.asOfDay - m.day > 10 ? 'Reconciled' : 'Unreconciled',
      currency: currencyCode(m.cur),
      currencyRate: m.rate,
      lines: [{ description: m.description, recordRef: { id: childId, dataType: m.childType }, amount }],
      totalAmount: amount,
      sourceModifiedDate: modified,
    });
  }
}

export const bankTransactionsSource = source('bankTransactions', 'BankTransaction', BankTransactionSchema, bankTransactions);
export const accountTransactionsSource = source('accountTransactions', 'AccountTransaction', AccountTransactionSchema, accountTransactions);
