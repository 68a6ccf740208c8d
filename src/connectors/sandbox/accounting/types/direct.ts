import type { SourceRecord } from '../../../connector.js';
import { CashState, loadDirectCost, loadDirectIncome } from '../core/cash-state.js';
import { CARD_REPAYMENT, EUR_SWEEP, USD_SWEEP, loadTransfer } from '../core/transfers.js';
import { bankLedgerAccount } from '../core/postings.js';
import { A, B, CORE_BANKS, GBP } from '../engine/chart.js';
import { type Ctx, K, money } from '../engine/context.js';
import { guid } from '../engine/hash.js';
import { countAt } from '../engine/lifecycle.js';
import { DirectCostSchema, DirectIncomeSchema, TransferSchema } from '../../../../codat-model/accounting/index.js';
import { C_DIRECT_COST, C_DIRECT_INCOME, C_SHOP_PAYOUT, cashIndex } from './cash-codes.js';
import { NONE, currencyCode, lineTracking, modifiedAt, pad, record, shopReference, source } from './shared.js';
import { SHOP_BASE, shopSales, type ShopSale } from '../core/shop-sales.js';
import { bankOfCurrency } from '../core/postings.js';
import { DEPT_ADMIN, DEPT_SALES } from '../core/invoice-state.js';

const DESCRIPTIONS: Record<number, readonly string[]> = {
  [A.BankCharges]: ['Monthly account fee', 'Card processing fees', 'International payment fee'],
  [A.OfficeSupplies]: ['Stationery', 'Printer toner', 'Office chairs', 'Kitchen supplies'],
  [A.Travel]: ['Train tickets', 'Taxi', 'Hotel, two nights', 'Parking'],
  [A.Meals]: ['Client lunch', 'Team lunch', 'Coffee meeting'],
  [A.Software]: ['Cloud hosting', 'Design tool subscription', 'Password manager'],
  [A.Freight]: ['Courier', 'Postage', 'Pallet delivery'],
  [A.InterestExpense]: ['Loan interest', 'Overdraft interest'],
  [A.Repairs]: ['Emergency plumber', 'Window repair', 'Laptop repair'],
  [A.InterestIncome]: ['Savings interest'],
  [A.OtherIncome]: ['Scrap metal sale', 'Supplier rebate', 'Sale of used equipment', 'Cash sale'],
};

function cashRecord(ctx: Ctx, s: CashState, cost: boolean): SourceRecord {
  const key = cost ? K.directCosts : K.directIncomes;
  const id = guid(ctx.seed, key, s.index);
  const modified = modifiedAt(ctx, s.day, s.created, s.lastChange, s.variant);
  const descriptions = DESCRIPTIONS[s.acct];
  const description = descriptions[s.variant % descriptions.length];
  const date = ctx.cal.local(s.day);
  const total = money(s.total);
  const tracking = lineTracking(ctx, cost ? DEPT_ADMIN : DEPT_SALES, 0);
  return record(id, modified, {
    id,
    reference: `${cost ? 'DC' : 'DI'}-${pad(s.index + 1, 6)}`,
    note: s.lastChange > 0 ? `${description} (receipt attached)` : undefined,
    contactRef:
      s.party >= 0
        ? { id: guid(ctx.seed, cost ? K.suppliers : K.customers, s.party), dataType: cost ? 'suppliers' : 'customers' }
        : undefined,
    issueDate: date,
    currency: 'GBP',
    currencyRate: 1,
    lineItems: [
      {
        description,
        unitAmount: money(s.sub),
        quantity: 1,
        discountAmount: 0,
        discountPercentage: 0,
        subTotal: money(s.sub),
        taxAmount: money(s.tax),
        totalAmount: total,
        accountRef: ctx.accountRefs[s.acct],
        taxRateRef: ctx.taxRefs[s.taxRate],
        trackingCategoryRefs: tracking.refs,
      },
    ],
    paymentAllocations: [
      {
        payment: {
          id: guid(ctx.seed, K.accountTransactions, cashIndex(s.index, cost ? C_DIRECT_COST : C_DIRECT_INCOME)),
          accountRef: ctx.accountRefs[bankLedgerAccount(s.bank)],
          currency: 'GBP',
          currencyRate: 1,
          paidOnDate: date,
          totalAmount: total,
        },
        allocation: { currency: 'GBP', currencyRate: 1, allocatedOnDate: date, totalAmount: total },
      },
    ],
    subTotal: money(s.sub),
    taxAmount: money(s.tax),
    totalAmount: total,
    sourceModifiedDate: modified,
  });
}

/**
 * What the shop paid in, as the books have it: a direct income into the bank account of its currency. A card payout
 * has one line of the takings (product sales, with the tax in them) and one of the processor's fees taken off, and its
 * note names the payout in the Commerce Sandbox (`commerce-transactions`); banked takings (cash, PayPal, Klarna) have
 * the one line of the takings.
 */
function shopIncomeRecord(ctx: Ctx, s: ShopSale): SourceRecord {
  const id = guid(ctx.seed, K.directIncomes, s.source);
  const modified = modifiedAt(ctx, s.day, 0, 0, s.source);
  const date = ctx.cal.local(s.day);
  const currency = currencyCode(s.currency);
  const rate = s.currency === GBP ? 1 : s.rate;
  const sales = s.takings - s.tax;
  const tracking = lineTracking(ctx, DEPT_SALES, 0);
  const line = (description: string, sub: number, tax: number, account: number) => ({
    description,
    unitAmount: money(sub),
    quantity: 1,
    discountAmount: 0,
    discountPercentage: 0,
    subTotal: money(sub),
    taxAmount: money(tax),
    totalAmount: money(sub + tax),
    accountRef: ctx.accountRefs[account],
    trackingCategoryRefs: tracking.refs,
  });
  const card = s.kind === 'card';
  return record(id, modified, {
    id,
    reference: shopReference(s.source - SHOP_BASE),
    note: card ? `Card payout ${s.id}` : 'Takings banked: cash, PayPal and Klarna',
    issueDate: date,
    currency,
    currencyRate: rate,
    lineItems: card
      ? [
          line('Shop sales (card takings less refunds)', sales, s.tax, A.SalesProducts),
          line('Card processing fees', -s.fees, 0, A.BankCharges),
        ]
      : [line('Shop sales (cash, PayPal and Klarna takings less refunds)', sales, s.tax, A.SalesProducts)],
    paymentAllocations: [
      {
        payment: {
          id: guid(ctx.seed, K.accountTransactions, cashIndex(s.source, C_SHOP_PAYOUT)),
          accountRef: ctx.accountRefs[bankLedgerAccount(bankOfCurrency(s.currency))],
          currency,
          currencyRate: rate,
          paidOnDate: date,
          totalAmount: money(s.amount),
        },
        allocation: { currency, currencyRate: rate, allocatedOnDate: date, totalAmount: money(s.amount) },
      },
    ],
    subTotal: money(sales - s.fees),
    taxAmount: money(s.tax),
    totalAmount: money(s.amount),
    sourceModifiedDate: modified,
  });
}

/** What a transfer is, by its kind and direction (`core/transfers.ts`): a sweep may convert or top up. */
export function transferDescription(s: CashState): string {
  switch (s.acct) {
    case USD_SWEEP:
      return s.bank === B.Usd ? 'USD to GBP conversion' : 'GBP to USD top-up';
    case EUR_SWEEP:
      return s.bank === B.Eur ? 'EUR to GBP conversion' : 'GBP to EUR top-up';
    case CARD_REPAYMENT:
      return 'Credit card repayment';
    default:
      return s.toBank === B.Savings ? 'Transfer to savings' : 'Transfer from savings';
  }
}

function transferRecord(ctx: Ctx, s: CashState): SourceRecord {
  const id = guid(ctx.seed, K.transfers, s.index);
  const modified = modifiedAt(ctx, s.day, s.created, s.lastChange, s.variant);
  const amount = money(s.total);
  return record(id, modified, {
    id,
    description: s.lastChange > 0 ? `${transferDescription(s)} (ref ${pad(s.variant % 10_000, 4)})` : transferDescription(s),
    date: ctx.cal.local(s.day),
    from: { accountRef: ctx.accountRefs[bankLedgerAccount(s.bank)], amount, currency: currencyCode(CORE_BANKS[s.bank][2]) },
    to: {
      accountRef: ctx.accountRefs[bankLedgerAccount(s.toBank)],
      amount: money(s.toTotal),
      currency: currencyCode(CORE_BANKS[s.toBank][2]),
    },
    trackingCategoryRefs: NONE,
    depositedRecordRefs: NONE,
    sourceModifiedDate: modified,
  });
}

function* generate(ctx: Ctx, epoch: number, kind: 'cost' | 'income' | 'transfer'): Generator<SourceRecord> {
  const s = new CashState();
  const lc = kind === 'cost' ? ctx.lc.directCosts : kind === 'income' ? ctx.lc.directIncomes : ctx.lc.transfers;
  const load = kind === 'cost' ? loadDirectCost : kind === 'income' ? loadDirectIncome : loadTransfer;
  const count = countAt(lc, epoch);
  for (let j = 0; j < count; j++) {
    load(ctx, j, epoch, s);
    if (s.deleted <= epoch) continue;
    yield kind === 'transfer' ? transferRecord(ctx, s) : cashRecord(ctx, s, kind === 'cost');
  }
  // What the shop paid in comes after every other direct income (its sources start at SHOP_BASE).
  if (kind === 'income') for (const sale of shopSales(ctx)) yield shopIncomeRecord(ctx, sale);
}

export const directCosts = source('directCosts', 'DirectCost', DirectCostSchema, (ctx, e) => generate(ctx, e, 'cost'));
export const directIncomes = source('directIncomes', 'DirectIncome', DirectIncomeSchema, (ctx, e) => generate(ctx, e, 'income'));
export const transfers = source('transfers', 'Transfer', TransferSchema, (ctx, e) => generate(ctx, e, 'transfer'));
