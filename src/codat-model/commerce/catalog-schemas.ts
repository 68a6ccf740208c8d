import { Type, type TSchema } from '@sinclair/typebox';
import { Address, CreatedDate, literals, ModifiedDates, RecordMetadata, SupplementalData } from './schemas.js';

/** Wire schemas of the commerce reference data: company, customers, products, locations, tax, payment methods. */

const Local = Type.String({ format: 'date-time', 'x-date-style': 'local' });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const opt = Type.Optional;

export const CommerceCompanyInfo = Type.Object({
  id: Type.String(),
  companyName: opt(Type.String()),
  commercePlatformRef: opt(Type.String()),
  companyLegalName: opt(Type.String()),
  addresses: opt(Type.Array(Address)),
  phoneNumbers: opt(
    Type.Array(Type.Object({ number: opt(nullable(Type.String())), type: literals(['Primary', 'Landline', 'Mobile', 'Fax', 'Unknown']) })),
  ),
  webLinks: opt(
    Type.Array(Type.Object({ type: opt(literals(['Website', 'Social', 'Unknown'])), url: opt(Type.String({ format: 'uri' })) })),
  ),
  registrationNumber: opt(Type.String()),
  baseCurrency: opt(Type.String()),
  accountBalances: opt(
    Type.Array(
      Type.Object({
        available: opt(Type.Number()),
        pending: opt(Type.Number()),
        reserved: opt(Type.Number()),
        currency: opt(Type.String()),
      }),
    ),
  ),
  sourceUrls: opt(Type.Record(Type.String(), Type.String())),
  ...CreatedDate,
  ...ModifiedDates,
  ...RecordMetadata,
});

export const CommerceCustomer = Type.Object({
  id: Type.String(),
  customerName: opt(Type.String()),
  emailAddress: opt(Type.String()),
  phone: opt(nullable(Type.String())),
  defaultCurrency: opt(Type.String()),
  addresses: opt(Type.Array(Address)),
  note: opt(Type.String()),
  ...CreatedDate,
  ...ModifiedDates,
  ...RecordMetadata,
});

export const CommerceLocation = Type.Object({
  id: Type.String(),
  name: opt(Type.String()),
  address: opt(Address),
  ...ModifiedDates,
  ...RecordMetadata,
});

export const CommerceTaxComponent = Type.Object({
  id: Type.String(),
  name: Type.String(),
  rate: opt(Type.Number()),
  isCompound: opt(Type.Boolean()),
  ...ModifiedDates,
  ...RecordMetadata,
});

export const CommercePaymentMethod = Type.Object({
  id: Type.String(),
  name: opt(Type.String()),
  status: opt(literals(['Unknown', 'Active', 'Archived'])),
  ...ModifiedDates,
  ...RecordMetadata,
});

export const CommerceProductCategory = Type.Object({
  id: opt(Type.String()),
  name: opt(Type.String()),
  ancestorRefs: opt(Type.Array(Type.Object({ id: Type.String(), type: Type.String() }))),
  hasChildren: opt(Type.Boolean()),
  ...ModifiedDates,
  ...RecordMetadata,
});

export const ProductVariant = Type.Object({
  id: Type.String(),
  name: opt(Type.String()),
  isTaxEnabled: opt(Type.Boolean()),
  sku: opt(Type.String()),
  barcode: opt(Type.String()),
  unitOfMeasure: opt(Type.String()),
  vatPercentage: opt(Type.Number()),
  prices: opt(Type.Array(Type.Object({ currency: opt(nullable(Type.String())), unitPrice: opt(Type.Number()) }))),
  inventory: opt(
    Type.Object({
      totalQuantity: opt(nullable(Type.Number())),
      locations: opt(
        Type.Array(
          Type.Object({ quantity: opt(Type.Number()), locationRef: opt(Type.Object({ id: Type.String(), name: opt(Type.String()) })) }),
        ),
      ),
    }),
  ),
  shippingRequired: opt(Type.Boolean()),
  status: opt(literals(['Unknown', 'Published', 'Unpublished'])),
  createdDate: opt(Local),
  ...ModifiedDates,
});

export const CommerceProduct = Type.Object({
  id: Type.String(),
  name: opt(Type.String()),
  description: opt(Type.String()),
  categorization: opt(Type.String()),
  isGiftCard: opt(Type.Boolean()),
  variants: opt(Type.Array(ProductVariant)),
  supplementalData: opt(SupplementalData),
  ...ModifiedDates,
  ...RecordMetadata,
});
