import { type TLiteral, type TProperties, type TSchema, type TUnion, Type } from '@sinclair/typebox';

/** Building blocks of the accounting schemas (Codat's shapes, facts 2.2-2.4 and the Sync OpenAPI documents). */

/** An instant, ISO-8601 UTC (`2024-05-01T10:00:00Z`). */
export const Instant = Type.String({ format: 'date-time' });
/** A business-local date-time without offset (`2024-05-01T00:00:00`). */
export const LocalDate = Type.String({ format: 'date-time', 'x-date-style': 'local' });
/** A decimal amount. */
export const Money = Type.Number();
export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code' });
export const CurrencyRate = Type.Number({ description: 'Foreign currency units to one base currency unit times this gives base' });

/** A union of string literals (Codat's enums). */
export function Enum<T extends string[]>(...values: [...T]): TUnion<{ [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(values.map((v) => Type.Literal(v))) as never;
}

export const Metadata = Type.Object({ isDeleted: Type.Optional(Type.Boolean()) });
export const SupplementalData = Type.Object({
  content: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
});

/** A served record: the type's fields plus `id`, `modifiedDate`, `sourceModifiedDate` and `metadata`. */
export function DataRecord<T extends TProperties>(
  properties: T,
  options: {
    title: string;
    description?: string;
    supplementalData?: boolean;
    /** A type some platform keeps no time of change for (Xero's tax rates, tracking categories and organisation). */
    sourceModifiedDateOptional?: boolean;
  },
) {
  return Type.Object(
    {
      id: Type.String(),
      ...properties,
      ...(options.supplementalData === false ? {} : { supplementalData: Type.Optional(SupplementalData) }),
      modifiedDate: Instant,
      // Absent only for a type some platform keeps no time of change for, as Codat's own schema allows ("not
      // populated" for some types and platforms); required elsewhere, so a served record without it is caught.
      sourceModifiedDate: options.sourceModifiedDateOptional ? Type.Optional(Instant) : Instant,
      metadata: Metadata,
    },
    { title: options.title, ...(options.description ? { description: options.description } : {}) },
  );
}

export const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

export const AccountRef = Type.Object({ id: Opt(Type.String()), name: Opt(Type.String()) });
export const TaxRateRef = Type.Object({ id: Opt(Type.String()), name: Opt(Type.String()), effectiveTaxRate: Opt(Type.Number()) });
export const ItemRef = Type.Object({ id: Type.String(), name: Opt(Type.String()) });
export const TrackingCategoryRef = Type.Object({ id: Type.String(), name: Opt(Type.String()) });
export const CustomerRef = Type.Object({ id: Type.String(), companyName: Opt(Type.String()) });
export const SupplierRef = Type.Object({ id: Type.String(), supplierName: Opt(Type.String()) });
export const PaymentMethodRef = Type.Object({ id: Type.String(), name: Opt(Type.String()) });
export const ContactRef = Type.Object({ id: Type.String(), dataType: Opt(Enum('customers', 'suppliers')) });
export const ProjectRef = Type.Object({ id: Type.String(), name: Opt(Type.String()) });
export const BankAccountRef = Type.Object({ id: Opt(Type.String()), name: Opt(Type.String()) });
export const RecordRef = Type.Object({ id: Opt(Type.String()), dataType: Opt(Type.String()) });

export const Address = Type.Object({
  type: Enum('Unknown', 'Billing', 'Delivery'),
  line1: Opt(Type.String()),
  line2: Opt(Type.String()),
  city: Opt(Type.String()),
  region: Opt(Type.String()),
  country: Opt(Type.String()),
  postalCode: Opt(Type.String()),
});

export const PhoneNumber = Type.Object({
  number: Opt(Type.String()),
  type: Enum('Primary', 'Landline', 'Mobile', 'Fax', 'Unknown'),
});

export const WithholdingTax = Type.Array(Type.Object({ name: Type.String(), amount: Money }));

export const ValidDatatypeLinks = Type.Array(Type.Object({ property: Opt(Type.String()), links: Opt(Type.Array(Type.String())) }));

/** An allocation of a payment or credit note to a document (`AccountingPaymentAllocation`). */
export const PaymentAllocation = Type.Object({
  payment: Type.Object({
    id: Opt(Type.String()),
    note: Opt(Type.String()),
    reference: Opt(Type.String()),
    accountRef: Opt(AccountRef),
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    paidOnDate: Opt(LocalDate),
    totalAmount: Opt(Money),
  }),
  allocation: Type.Object({
    currency: Opt(Currency),
    currencyRate: Opt(CurrencyRate),
    allocatedOnDate: Opt(LocalDate),
    totalAmount: Opt(Money),
  }),
});

/** Line-level tracking of sales documents. */
export const SalesTracking = Type.Object({
  categoryRefs: Type.Array(TrackingCategoryRef),
  customerRef: Opt(CustomerRef),
  projectRef: Opt(ProjectRef),
  isBilledTo: Enum('Unknown', 'NotApplicable', 'Project'),
  isRebilledTo: Enum('Unknown', 'NotApplicable', 'Project'),
  recordRef: Opt(RecordRef),
});

/** Line-level tracking of purchase documents. */
export const PurchaseTracking = Type.Object({
  categoryRefs: Type.Array(TrackingCategoryRef),
  customerRef: Opt(CustomerRef),
  projectRef: Opt(ProjectRef),
  isBilledTo: Enum('Unknown', 'NotApplicable', 'Customer', 'Project'),
  isRebilledTo: Enum('Unknown', 'NotApplicable', 'Customer', 'Project'),
});

/** Invoice, credit note and sales order lines. */
export const SalesLineItem = Type.Object({
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
  tracking: Opt(SalesTracking),
  isDirectIncome: Opt(Type.Boolean()),
});

/** Payment and bill payment lines; `linkTypes` are the allowed link types. */
export function PaymentLines(linkTypes: string[]) {
  return Type.Array(
    Type.Object({
      amount: Money,
      links: Opt(
        Type.Array(
          Type.Object({
            type: Enum(...linkTypes),
            id: Opt(Type.String()),
            amount: Opt(Money),
            currencyRate: Opt(CurrencyRate),
          }),
        ),
      ),
      allocatedOnDate: Opt(LocalDate),
    }),
  );
}

export const ShipTo = Type.Object({
  contact: Opt(Type.Object({ name: Opt(Type.String()), email: Opt(Type.String()), phone: Opt(Type.String()) })),
  address: Opt(Address),
});
