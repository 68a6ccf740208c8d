import { Type } from '@sinclair/typebox';
import {
  AccountRef, Address, Currency, CurrencyRate, CustomerRef, DataRecord, Enum, LocalDate, Money, Opt, PaymentAllocation,
  PaymentLines, PaymentMethodRef, PhoneNumber, SalesLineItem, ShipTo, WithholdingTax,
} from './common.js';

export const InvoiceSchema = DataRecord(
  {
    invoiceNumber: Opt(Type.String()),
    customerRef: Opt(CustomerRef),
    salesOrderRefs: Opt(Type.Array(Type.Object({ id: Opt(Type.String()), dataType: Opt(Enum('salesOrders')) }))),
    issueDate: LocalDate,
    dueDate: Opt(LocalDate),
    paidOnDate: Opt(LocalDate),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lineItems: Opt(Type.Array(SalesLineItem)),
    paymentAllocations: Opt(Type.Array(PaymentAllocation)),
    withholdingTax: Opt(WithholdingTax),
    totalDiscount: Opt(Money),
    subTotal: Opt(Money),
    additionalTaxAmount: Opt(Money),
    additionalTaxPercentage: Opt(Type.Number()),
    totalTaxAmount: Money,
    totalAmount: Money,
    amountDue: Money,
    discountPercentage: Opt(Type.Number()),
    status: Enum('Unknown', 'Draft', 'Submitted', 'PartiallyPaid', 'Paid', 'Void'),
    note: Opt(Type.String()),
  },
  { title: 'Invoice' },
);

export const CreditNoteSchema = DataRecord(
  {
    creditNoteNumber: Opt(Type.String()),
    customerRef: Opt(CustomerRef),
    withholdingTax: Opt(WithholdingTax),
    totalAmount: Money,
    totalDiscount: Money,
    subTotal: Money,
    additionalTaxAmount: Opt(Money),
    additionalTaxPercentage: Opt(Type.Number()),
    totalTaxAmount: Money,
    discountPercentage: Type.Number(),
    remainingCredit: Money,
    status: Enum('Unknown', 'Draft', 'Submitted', 'Paid', 'Void', 'PartiallyPaid'),
    issueDate: Opt(LocalDate),
    allocatedOnDate: Opt(LocalDate),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lineItems: Opt(Type.Array(SalesLineItem)),
    paymentAllocations: Opt(Type.Array(PaymentAllocation)),
    note: Opt(Type.String()),
  },
  { title: 'CreditNote' },
);

export const PaymentSchema = DataRecord(
  {
    customerRef: Opt(CustomerRef),
    accountRef: Opt(AccountRef),
    paymentMethodRef: Opt(PaymentMethodRef),
    totalAmount: Opt(Money),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    date: LocalDate,
    note: Opt(Type.String()),
    reference: Opt(Type.String()),
    lines: Opt(PaymentLines(['Unknown', 'Unlinked', 'Invoice', 'CreditNote', 'Other', 'Refund', 'Payment', 'PaymentOnAccount', 'ManualJournal', 'Discount'])),
  },
  { title: 'Payment' },
);

export const SalesOrderSchema = DataRecord(
  {
    salesOrderNumber: Opt(Type.String()),
    customerPurchaseOrderNumber: Opt(Type.String()),
    customerRef: Opt(CustomerRef),
    issueDate: Opt(LocalDate),
    expectedDeliveryDate: Opt(LocalDate),
    status: Opt(Enum('Unknown', 'Draft', 'Open', 'Closed', 'Void')),
    invoicingStatus: Opt(Enum('Unknown', 'PartiallyInvoiced', 'Invoiced', 'NotInvoiced')),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lineItems: Opt(Type.Array(SalesLineItem)),
    shipTo: Opt(ShipTo),
    totalDiscount: Opt(Money),
    subTotal: Opt(Money),
    totalTaxAmount: Opt(Money),
    totalAmount: Opt(Money),
    note: Opt(Type.String()),
  },
  { title: 'SalesOrder' },
);

const Contact = Type.Object({
  name: Opt(Type.String()),
  email: Opt(Type.String()),
  phone: Opt(Type.Array(PhoneNumber)),
  address: Opt(Address),
  status: Enum('Unknown', 'Active', 'Archived'),
  modifiedDate: Opt(Type.String({ format: 'date-time' })),
});

export const CustomerSchema = DataRecord(
  {
    customerName: Opt(Type.String()),
    contactName: Opt(Type.String()),
    emailAddress: Opt(Type.String()),
    phone: Opt(Type.String()),
    defaultCurrency: Opt(Currency),
    addresses: Opt(Type.Array(Address)),
    contacts: Opt(Type.Array(Contact)),
    registrationNumber: Opt(Type.String()),
    taxNumber: Opt(Type.String()),
    status: Enum('Unknown', 'Active', 'Archived'),
  },
  { title: 'Customer' },
);
