import { Type } from '@sinclair/typebox';
import {
  AccountRef,
  BankAccountRef,
  ContactRef,
  Currency,
  CurrencyRate,
  DataRecord,
  Enum,
  ItemRef,
  LocalDate,
  Money,
  Opt,
  PaymentAllocation,
  RecordRef,
  TaxRateRef,
  TrackingCategoryRef,
} from './common.js';

export const BankAccountSchema = DataRecord(
  {
    accountName: Opt(Type.String()),
    accountType: Enum('Unknown', 'Credit', 'Debit'),
    nominalCode: Opt(Type.String()),
    sortCode: Opt(Type.String()),
    accountNumber: Opt(Type.String()),
    iBan: Opt(Type.String()),
    currency: Opt(Currency),
    balance: Opt(Money),
    institution: Opt(Type.String()),
    availableBalance: Opt(Money),
    overdraftLimit: Opt(Money),
    status: Opt(Enum('Unknown', 'Active', 'Archived', 'Pending')),
  },
  { title: 'BankAccount' },
);

export const BankTransactionSchema = DataRecord(
  {
    accountId: Type.String(),
    clearedOnDate: Opt(LocalDate),
    description: Opt(Type.String()),
    reconciled: Opt(Type.Boolean()),
    amount: Money,
    balance: Opt(Money),
    transactionType: Opt(
      Enum(
        'Unknown',
        'Credit',
        'Debit',
        'Int',
        'Div',
        'Fee',
        'SerChg',
        'Dep',
        'Atm',
        'Pos',
        'Xfer',
        'Check',
        'Payment',
        'Cash',
        'DirectDep',
        'DirectDebit',
        'RepeatPmt',
        'Other',
      ),
    ),
  },
  { title: 'BankTransaction', supplementalData: false },
);

export const AccountTransactionSchema = DataRecord(
  {
    transactionId: Opt(Type.String()),
    note: Opt(Type.String()),
    bankAccountRef: Opt(BankAccountRef),
    date: Opt(LocalDate),
    status: Opt(Enum('Unknown', 'Unreconciled', 'Reconciled', 'Void')),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lines: Opt(Type.Array(Type.Object({ description: Opt(Type.String()), recordRef: Opt(RecordRef), amount: Opt(Money) }))),
    totalAmount: Opt(Money),
  },
  { title: 'AccountTransaction', supplementalData: false },
);

const DirectLineItem = Type.Object({
  description: Opt(Type.String()),
  unitAmount: Money,
  quantity: Type.Number(),
  discountAmount: Opt(Money),
  discountPercentage: Opt(Type.Number()),
  subTotal: Opt(Money),
  taxAmount: Opt(Money),
  totalAmount: Opt(Money),
  accountRef: Opt(AccountRef),
  taxRateRef: Opt(TaxRateRef),
  itemRef: Opt(ItemRef),
  trackingCategoryRefs: Opt(Type.Array(TrackingCategoryRef)),
});

const directFields = {
  reference: Opt(Type.String()),
  note: Opt(Type.String()),
  contactRef: Opt(ContactRef),
  issueDate: LocalDate,
  currency: Currency,
  currencyRate: Opt(CurrencyRate),
  lineItems: Type.Array(DirectLineItem),
  paymentAllocations: Type.Array(PaymentAllocation),
  subTotal: Money,
  taxAmount: Money,
  totalAmount: Money,
};

export const DirectCostSchema = DataRecord(directFields, { title: 'DirectCost' });
export const DirectIncomeSchema = DataRecord(directFields, { title: 'DirectIncome' });

const TransferAccount = Type.Object({ accountRef: Opt(AccountRef), amount: Opt(Money), currency: Opt(Currency) });

export const TransferSchema = DataRecord(
  {
    description: Opt(Type.String()),
    contactRef: Opt(ContactRef),
    date: Opt(LocalDate),
    from: Opt(TransferAccount),
    to: Opt(TransferAccount),
    trackingCategoryRefs: Opt(Type.Array(TrackingCategoryRef)),
    depositedRecordRefs: Opt(Type.Array(RecordRef)),
  },
  { title: 'Transfer' },
);
