import { Type, type TSchema } from '@sinclair/typebox';

/** Wire schemas of the banking data types (Codat-Banking.json, components/schemas). */

const Instant = Type.String({ format: 'date-time' });
/** Bank dates are business-local (`2021-07-06T00:00:00`), as in the OAS examples. */
const LocalDate = Type.String({ format: 'date-time', 'x-date-style': 'local' });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** On every served record: when it changed (here and on the platform), and the service's `metadata` (src/records/data-set-writer.ts). */
const ServiceFields = {
  modifiedDate: Type.Optional(Instant),
  sourceModifiedDate: Type.Optional(Instant),
  // Optional, as the dates are: uploaded pages are validated against these schemas and do not carry them.
  metadata: Type.Optional(
    Type.Object({
      isDeleted: Type.Optional(
        Type.Boolean({ description: 'True when the platform no longer has the record (it is kept, marked deleted).' }),
      ),
    }),
  ),
};

export const TRANSACTION_CODES = [
  'Unknown',
  'Fee',
  'Payment',
  'Cash',
  'Transfer',
  'Interest',
  'Cashback',
  'Cheque',
  'DirectDebit',
  'Purchase',
  'StandingOrder',
  'Adjustment',
  'Credit',
  'Other',
  'NotSupported',
] as const;

export const BalanceAmounts = Type.Object(
  {
    available: Type.Optional(nullable(Type.Number())),
    current: Type.Optional(Type.Number()),
    limit: Type.Optional(nullable(Type.Number())),
  },
  { additionalProperties: false },
);

export const BankingAccount = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  informalName: Type.Optional(nullable(Type.String())),
  holder: Type.Optional(nullable(Type.String())),
  type: literals(['Unknown', 'Credit', 'Debit']),
  balance: BalanceAmounts,
  identifiers: Type.Object(
    {
      type: literals(['Account', 'Card', 'Credit', 'Depository', 'Investment', 'Loan', 'Other']),
      subtype: Type.Optional(nullable(Type.String())),
      number: Type.Optional(nullable(Type.String())),
      bankCode: Type.Optional(nullable(Type.String())),
      iban: Type.Optional(nullable(Type.String())),
      bic: Type.Optional(nullable(Type.String())),
      maskedAccountNumber: Type.Optional(nullable(Type.String())),
    },
    { additionalProperties: false },
  ),
  currency: Type.String({ minLength: 1 }),
  institution: Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }, { additionalProperties: false }),
  ...ServiceFields,
});

export const BankingAccountBalance = Type.Object({
  id: Type.String({ minLength: 1 }),
  accountId: Type.String({ minLength: 1 }),
  balance: BalanceAmounts,
  date: LocalDate,
  ...ServiceFields,
});

export const BankingTransaction = Type.Object({
  id: Type.String({ minLength: 1 }),
  accountId: Type.String({ minLength: 1 }),
  description: Type.Optional(nullable(Type.String())),
  amount: Type.Optional(Type.Number()),
  currency: Type.String({ minLength: 1 }),
  postedDate: Type.Optional(LocalDate),
  authorizedDate: Type.Optional(LocalDate),
  code: Type.Optional(literals(TRANSACTION_CODES)),
  merchantName: Type.Optional(nullable(Type.String())),
  transactionCategoryRef: Type.Optional(Type.Object({ id: Type.String({ minLength: 1 }), name: Type.Optional(nullable(Type.String())) })),
  ...ServiceFields,
});

export const BankingTransactionCategory = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  parentId: Type.Optional(nullable(Type.String())),
  hasChildren: Type.Optional(Type.Boolean()),
  status: Type.Optional(literals(['Unknown', 'Active', 'Archived'])),
  ...ServiceFields,
});
