import { Type, type TSchema } from '@sinclair/typebox';

/** Wire schemas of the commerce data types (Codat-Commerce.json, components/schemas). */

const Instant = Type.String({ format: 'date-time' });
/** Commerce business dates are local to the shop (`2021-03-28T03:00:14`), as in the OAS examples. */
const Local = Type.String({ format: 'date-time', 'x-date-style': 'local' });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const opt = Type.Optional;

export const ModifiedDates = { modifiedDate: opt(Instant), sourceModifiedDate: opt(Instant) };
/**
 * What the service adds to every served record (src/records/data-set-writer.ts). Optional, as the dates are: the
 * same schemas describe records before the service adds them.
 */
export const RecordMetadata = {
  metadata: opt(
    Type.Object({
      isDeleted: opt(Type.Boolean({ description: 'True when the platform no longer has the record (it is kept, marked deleted).' })),
    }),
  ),
};
export const CreatedDate = { createdDate: opt(Local) };
export const SupplementalData = Type.Object({
  content: opt(nullable(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())))),
});
const Ref = Type.Object({ id: Type.String(), name: opt(Type.String()) });

export const Address = Type.Object({
  type: opt(literals(['Billing', 'Delivery', 'Order', 'Inventory', 'Unknown'])),
  line1: opt(Type.String()),
  line2: opt(Type.String()),
  city: opt(Type.String()),
  region: opt(Type.String()),
  country: opt(Type.String()),
  postalCode: opt(Type.String()),
});

export const PAYMENT_TYPES = [
  'Cash',
  'Card',
  'Invoice',
  'OnlineCard',
  'Swish',
  'Vipps',
  'Mobile',
  'StoreCredit',
  'Paypal',
  'Custom',
  'Prepaid',
  'Unknown',
] as const;
export const PAYMENT_STATUSES = ['Pending', 'Authorized', 'Paid', 'Failed', 'Cancelled', 'Unknown'] as const;
export const TRANSACTION_TYPES = [
  'Payment',
  'Refund',
  'Payout',
  'FailedPayout',
  'Transfer',
  'PaymentFee',
  'PaymentFeeRefund',
  'Unknown',
] as const;
export const SOURCE_TYPES = ['Fee', 'Order', 'Payment', 'ServiceCharge', 'Unknown'] as const;
export const DISPUTE_STATUSES = [
  'Won',
  'Lost',
  'Accepted',
  'Processing',
  'ChargeRefunded',
  'EvidenceRequired',
  'InquiryEvidenceRequired',
  'InquiryProcessing',
  'InquiryClosed',
  'WaitingThirdParty',
  'Unknown',
] as const;

const TaxAllocation = Type.Object({
  taxComponentRef: opt(Type.Object({ id: Type.String(), name: Type.String() })),
  /** The OAS describes this as the tax amount on the line from the source platform. */
  rate: opt(nullable(Type.Number())),
});

export const OrderLineItem = Type.Object({
  id: Type.String(),
  quantity: opt(Type.Number()),
  taxPercentage: opt(Type.Number()),
  totalAmount: opt(Type.Number()),
  totalTaxAmount: opt(Type.Number()),
  unitPrice: opt(Type.Number()),
  taxes: opt(Type.Array(TaxAllocation)),
  productRef: opt(Ref),
  productVariantRef: opt(Ref),
  discountAllocations: opt(Type.Array(Type.Object({ name: opt(Type.String()), totalAmount: opt(Type.Number()) }))),
});

export const PaymentRef = Type.Object({
  id: Type.String(),
  amount: opt(nullable(Type.Number())),
  currency: opt(Type.String()),
  type: opt(nullable(literals(PAYMENT_TYPES))),
  status: opt(literals(PAYMENT_STATUSES)),
  paymentProvider: opt(Type.String()),
  dueDate: opt(Local),
  ...CreatedDate,
  ...ModifiedDates,
});

export const ServiceCharge = Type.Object({
  description: opt(Type.String()),
  totalAmount: opt(Type.Number()),
  taxPercentage: opt(Type.Number()),
  taxAmount: opt(Type.Number()),
  taxes: opt(Type.Array(TaxAllocation)),
  quantity: opt(Type.Integer()),
  type: opt(literals(['Generic', 'Shipping', 'Overpayment', 'Unknown'])),
});

export const CommerceOrder = Type.Object({
  id: Type.String(),
  orderNumber: opt(Type.String()),
  country: opt(Type.String()),
  currency: opt(Type.String()),
  closedDate: opt(Local),
  totalAmount: opt(Type.Number()),
  totalRefund: opt(Type.Number()),
  totalTaxAmount: opt(Type.Number()),
  totalDiscount: opt(Type.Number()),
  totalGratuity: opt(Type.Number()),
  orderLineItems: opt(Type.Array(OrderLineItem)),
  payments: opt(Type.Array(PaymentRef)),
  serviceCharges: opt(Type.Array(ServiceCharge)),
  locationRef: opt(Ref),
  customerRef: opt(Ref),
  supplementalData: opt(SupplementalData),
  ...CreatedDate,
  ...ModifiedDates,
  ...RecordMetadata,
});

export const CommercePayment = Type.Object({
  id: Type.String(),
  amount: opt(Type.Number()),
  currency: opt(Type.String()),
  paymentMethodRef: opt(Ref),
  status: opt(literals(PAYMENT_STATUSES)),
  paymentProvider: opt(Type.String()),
  dueDate: opt(Local),
  supplementalData: opt(SupplementalData),
  ...CreatedDate,
  ...ModifiedDates,
  ...RecordMetadata,
});

const SourceRef = Type.Object({ id: Type.String(), type: literals(SOURCE_TYPES) });

export const CommerceTransaction = Type.Object({
  id: Type.String(),
  totalAmount: opt(Type.Number()),
  currency: opt(Type.String()),
  type: opt(literals(TRANSACTION_TYPES)),
  subType: opt(Type.String()),
  transactionSourceRef: opt(SourceRef),
  supplementalData: opt(SupplementalData),
  ...CreatedDate,
  sourceCreatedDate: opt(Local),
  ...ModifiedDates,
  ...RecordMetadata,
});

export const CommerceDispute = Type.Object({
  id: Type.String(),
  disputedTransactions: opt(Type.Array(SourceRef)),
  totalAmount: opt(Type.Number()),
  currency: Type.String(),
  status: opt(literals(DISPUTE_STATUSES)),
  reason: opt(Type.String()),
  dueDate: opt(Local),
  ...CreatedDate,
  ...ModifiedDates,
  ...RecordMetadata,
});
