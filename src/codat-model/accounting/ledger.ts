import { Type } from '@sinclair/typebox';
import {
  AccountRef,
  Address,
  Currency,
  DataRecord,
  Enum,
  Instant,
  LocalDate,
  Money,
  Opt,
  PhoneNumber,
  TaxRateRef,
  ValidDatatypeLinks,
} from './common.js';

export const AccountSchema = DataRecord(
  {
    nominalCode: Opt(Type.String()),
    name: Opt(Type.String()),
    description: Opt(Type.String()),
    fullyQualifiedCategory: Opt(Type.String()),
    fullyQualifiedName: Opt(Type.String()),
    currency: Opt(Currency),
    currentBalance: Opt(Money),
    type: Enum('Unknown', 'Asset', 'Expense', 'Income', 'Liability', 'Equity'),
    status: Enum('Unknown', 'Active', 'Archived', 'Pending'),
    isBankAccount: Opt(Type.Boolean()),
    validDatatypeLinks: Opt(ValidDatatypeLinks),
  },
  { title: 'Account' },
);

export const JournalEntrySchema = DataRecord(
  {
    description: Opt(Type.String()),
    postedOn: Opt(LocalDate),
    createdOn: Opt(Instant),
    updatedOn: Opt(Instant),
    journalRef: Opt(Type.Object({ id: Type.String(), name: Opt(Type.String()) })),
    journalLines: Opt(
      Type.Array(
        Type.Object({
          description: Opt(Type.String()),
          netAmount: Money,
          transactionAmount: Opt(Money),
          currency: Opt(Currency),
          transactionCurrency: Opt(Currency),
          accountRef: Opt(AccountRef),
          tracking: Opt(
            Type.Object({
              recordRefs: Opt(
                Type.Array(Type.Object({ id: Opt(Type.String()), dataType: Opt(Enum('customers', 'suppliers', 'trackingCategories')) })),
              ),
            }),
          ),
          contactRef: Opt(Type.Object({ id: Type.String(), dataType: Opt(Enum('customers', 'suppliers')) })),
        }),
      ),
    ),
    recordRef: Opt(
      Type.Object({
        id: Opt(Type.String()),
        dataType: Opt(
          Enum(
            'bankTransactions',
            'billCreditNotes',
            'billPayments',
            'bills',
            'creditNotes',
            'directCosts',
            'directIncomes',
            'invoices',
            'journalEntries',
            'payments',
            'transfers',
          ),
        ),
      }),
    ),
  },
  { title: 'JournalEntry' },
);

export const JournalSchema = DataRecord(
  {
    journalCode: Opt(Type.String()),
    name: Opt(Type.String()),
    type: Opt(Type.String()),
    parentId: Opt(Type.String()),
    hasChildren: Opt(Type.Boolean()),
    createdOn: Opt(Instant),
    status: Enum('Unknown', 'Active', 'Archived'),
  },
  { title: 'Journal', supplementalData: false },
);

export const TaxRateSchema = DataRecord(
  {
    name: Opt(Type.String()),
    code: Opt(Type.String()),
    status: Enum('Unknown', 'Active', 'Archived'),
    effectiveTaxRate: Opt(Type.Number()),
    totalTaxRate: Opt(Type.Number()),
    components: Opt(Type.Array(Type.Object({ name: Opt(Type.String()), rate: Opt(Type.Number()), isCompound: Type.Boolean() }))),
    validDatatypeLinks: Opt(ValidDatatypeLinks),
  },
  { title: 'TaxRate', sourceModifiedDateOptional: true },
);

export const TrackingCategorySchema = DataRecord(
  {
    name: Opt(Type.String()),
    status: Enum('Unknown', 'Active', 'Archived'),
    parentId: Opt(Type.String()),
    hasChildren: Opt(Type.Boolean()),
  },
  { title: 'TrackingCategory', supplementalData: false, sourceModifiedDateOptional: true },
);

export const PaymentMethodSchema = DataRecord(
  {
    name: Opt(Type.String()),
    type: Enum('Unknown', 'Cash', 'Check', 'CreditCard', 'DebitCard', 'BankTransfer', 'Other'),
    status: Enum('Unknown', 'Active', 'Archived'),
  },
  { title: 'PaymentMethod', supplementalData: false },
);

const ItemDetails = Type.Object({
  description: Opt(Type.String()),
  unitPrice: Opt(Money),
  accountRef: Opt(AccountRef),
  taxRateRef: Opt(TaxRateRef),
});

export const ItemSchema = DataRecord(
  {
    name: Opt(Type.String()),
    code: Opt(Type.String()),
    itemStatus: Enum('Unknown', 'Active', 'Archived'),
    type: Enum('Unknown', 'Inventory', 'NonInventory', 'Service'),
    isBillItem: Type.Boolean(),
    isInvoiceItem: Type.Boolean(),
    billItem: Opt(ItemDetails),
    invoiceItem: Opt(ItemDetails),
  },
  { title: 'Item' },
);

export const CompanyInfoSchema = DataRecord(
  {
    companyName: Opt(Type.String()),
    accountingPlatformRef: Opt(Type.String()),
    companyLegalName: Opt(Type.String()),
    addresses: Opt(Type.Array(Address)),
    phoneNumbers: Opt(Type.Array(PhoneNumber)),
    webLinks: Opt(Type.Array(Type.Object({ type: Opt(Enum('Website', 'Social', 'Unknown')), url: Opt(Type.String({ format: 'uri' })) }))),
    ledgerLockDate: Opt(LocalDate),
    registrationNumber: Opt(Type.String()),
    taxNumber: Opt(Type.String()),
    financialYearStartDate: Opt(LocalDate),
    baseCurrency: Opt(Currency),
    sourceUrls: Opt(Type.Record(Type.String(), Type.String())),
    createdDate: Opt(Instant),
  },
  { title: 'CompanyInfo', sourceModifiedDateOptional: true },
);
