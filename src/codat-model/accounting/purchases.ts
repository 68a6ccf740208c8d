import { Type } from '@sinclair/typebox';
import {
  AccountRef,
  Address,
  Currency,
  CurrencyRate,
  DataRecord,
  Enum,
  ItemRef,
  LocalDate,
  Money,
  Opt,
  PaymentAllocation,
  PaymentLines,
  PaymentMethodRef,
  PurchaseTracking,
  RecordRef,
  ShipTo,
  SupplierRef,
  TaxRateRef,
  TrackingCategoryRef,
  WithholdingTax,
} from './common.js';

const LineRef = Type.Object({ id: Opt(Type.String()), dataType: Opt(Enum('purchaseOrders', 'bills')), lineNumber: Opt(Type.String()) });

/** Bill, bill credit note and purchase order lines. */
const PurchaseLineItem = Type.Object({
  lineNumber: Opt(Type.String()),
  description: Opt(Type.String()),
  unitAmount: Money,
  quantity: Type.Number(),
  unitOfMeasurement: Opt(Type.String()),
  discountAmount: Opt(Money),
  discountPercentage: Opt(Type.Number()),
  subTotal: Opt(Money),
  taxAmount: Opt(Money),
  totalAmount: Opt(Money),
  accountRef: Opt(AccountRef),
  taxRateRef: Opt(TaxRateRef),
  itemRef: Opt(ItemRef),
  purchaseOrderLineRef: Opt(LineRef),
  createdFromLineRef: Opt(LineRef),
  trackingCategoryRefs: Opt(Type.Array(TrackingCategoryRef)),
  tracking: Opt(PurchaseTracking),
  isDirectCost: Opt(Type.Boolean()),
});

export const BillSchema = DataRecord(
  {
    reference: Opt(Type.String()),
    supplierRef: Opt(SupplierRef),
    purchaseOrderRefs: Opt(Type.Array(Type.Object({ id: Opt(Type.String()), purchaseOrderNumber: Opt(Type.String()) }))),
    issueDate: LocalDate,
    dueDate: Opt(LocalDate),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lineItems: Opt(Type.Array(PurchaseLineItem)),
    withholdingTax: Opt(WithholdingTax),
    status: Enum('Unknown', 'Open', 'PartiallyPaid', 'Paid', 'Void', 'Draft'),
    subTotal: Money,
    taxAmount: Money,
    totalAmount: Money,
    amountDue: Opt(Money),
    note: Opt(Type.String()),
    paymentAllocations: Opt(Type.Array(PaymentAllocation)),
  },
  { title: 'Bill' },
);

export const BillCreditNoteSchema = DataRecord(
  {
    billCreditNoteNumber: Opt(Type.String()),
    supplierRef: Opt(SupplierRef),
    withholdingTax: Opt(WithholdingTax),
    totalAmount: Money,
    totalDiscount: Money,
    subTotal: Money,
    totalTaxAmount: Money,
    discountPercentage: Type.Number(),
    remainingCredit: Money,
    status: Enum('Unknown', 'Draft', 'Submitted', 'Paid', 'Void', 'PartiallyPaid'),
    issueDate: Opt(LocalDate),
    allocatedOnDate: Opt(LocalDate),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lineItems: Opt(Type.Array(PurchaseLineItem)),
    paymentAllocations: Opt(Type.Array(PaymentAllocation)),
    createdFromRefs: Opt(Type.Array(RecordRef)),
    note: Opt(Type.String()),
  },
  { title: 'BillCreditNote' },
);

export const BillPaymentSchema = DataRecord(
  {
    supplierRef: Opt(SupplierRef),
    accountRef: Opt(AccountRef),
    totalAmount: Opt(Money),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    date: LocalDate,
    note: Opt(Type.String()),
    paymentMethodRef: Opt(PaymentMethodRef),
    lines: Opt(
      PaymentLines([
        'Unknown',
        'Unlinked',
        'Bill',
        'Other',
        'CreditNote',
        'BillPayment',
        'PaymentOnAccount',
        'Refund',
        'ManualJournal',
        'Discount',
      ]),
    ),
    reference: Opt(Type.String()),
  },
  { title: 'BillPayment' },
);

export const PurchaseOrderSchema = DataRecord(
  {
    purchaseOrderNumber: Opt(Type.String()),
    supplierRef: Opt(SupplierRef),
    createdBy: Opt(Type.Object({ firstName: Opt(Type.String()), lastName: Opt(Type.String()), email: Opt(Type.String()) })),
    issueDate: Opt(LocalDate),
    expectedDeliveryDate: Opt(LocalDate),
    deliveryDate: Opt(LocalDate),
    paymentDueDate: Opt(LocalDate),
    status: Opt(Enum('Unknown', 'Draft', 'Open', 'Closed', 'Void')),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lineItems: Opt(Type.Array(PurchaseLineItem)),
    shipTo: Opt(ShipTo),
    totalDiscount: Opt(Money),
    subTotal: Opt(Money),
    totalTaxAmount: Opt(Money),
    totalAmount: Opt(Money),
    note: Opt(Type.String()),
  },
  { title: 'PurchaseOrder' },
);

export const ItemReceiptSchema = DataRecord(
  {
    reference: Opt(Type.String()),
    supplierRef: Opt(SupplierRef),
    purchaseOrderRefs: Opt(Type.Array(Type.Object({ id: Opt(Type.String()), purchaseOrderNumber: Opt(Type.String()) }))),
    receivedDate: Opt(LocalDate),
    status: Opt(Enum('Unknown', 'Draft', 'Received', 'Rejected', 'Void')),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    lineItems: Opt(
      Type.Array(
        Type.Object({
          lineNumber: Opt(Type.String()),
          description: Opt(Type.String()),
          unitAmount: Opt(Money),
          quantity: Opt(Type.Number()),
          unitOfMeasurement: Opt(Type.String()),
          subTotal: Opt(Money),
          totalAmount: Opt(Money),
          accountRef: Opt(AccountRef),
          itemRef: Opt(ItemRef),
          purchaseOrderLineRef: Opt(LineRef),
          tracking: Opt(
            Type.Object({ recordRefs: Opt(Type.Array(Type.Object({ id: Opt(Type.String()), dataType: Opt(Type.String()) }))) }),
          ),
        }),
      ),
    ),
    subTotal: Opt(Money),
    totalAmount: Opt(Money),
    note: Opt(Type.String()),
  },
  { title: 'ItemReceipt' },
);

export const SupplierSchema = DataRecord(
  {
    supplierName: Opt(Type.String()),
    contactName: Opt(Type.String()),
    emailAddress: Opt(Type.String()),
    phone: Opt(Type.String()),
    addresses: Opt(Type.Array(Address)),
    registrationNumber: Opt(Type.String()),
    taxNumber: Opt(Type.String()),
    status: Enum('Unknown', 'Active', 'Archived'),
    defaultCurrency: Opt(Currency),
  },
  { title: 'Supplier' },
);
