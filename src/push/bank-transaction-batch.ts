import { Type, type Static } from '@sinclair/typebox';
import type { ValidationItem } from '../http/api-error.js';
import { schemaProblems, withoutNulls } from './write-validation.js';

/**
 * Codat's batch of bank transactions (`AccountingCreateBankTransactions`), written to one bank account with
 * `POST …/push/bankAccounts/{accountId}/bankTransactions`. The batch is one push operation of data type
 * `bankTransactions` whose record id is the account's; it creates every transaction of the batch, each as the
 * platform's own `bankTransactions` record, or none of them.
 */

/**
 * The most transactions one batch takes. A batch is settled in one transaction under the client's lock, so its size
 * bounds how long it holds other writes up; a statement's month of transactions fits many times over.
 */
export const MAX_BATCH = 1000;

const nullable = <T extends ReturnType<typeof Type.String | typeof Type.Number>>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

export const BankTransactionBatchItem = Type.Object(
  {
    id: nullable(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Identifier for the bank account transaction, unique for the company on the platform; the platform assigns one when absent.',
      }),
    ),
    amount: Type.Number({ description: 'The amount transacted: positive into the account, negative out of it.' }),
    // Any of Codat's DateTime forms, as every written date (write-validation.ts's `date-time`).
    date: Type.String({
      format: 'date-time',
      description: 'The date the transaction cleared: `2022-10-23`, `2022-10-23T00:00:00`, or with `Z` or an offset.',
    }),
    description: Type.Optional(Type.String({ description: 'Description of the bank transaction.' })),
    balance: nullable(Type.Number({ description: 'The remaining balance in the account after this transaction.' })),
  },
  // A misspelt field would otherwise be dropped unseen, as in a single record's write.
  { title: 'Bank account transaction', additionalProperties: false },
);

export const BankTransactionBatch = Type.Object(
  {
    accountId: nullable(Type.String({ description: 'The bank account written to; when sent, it must be the one the path names.' })),
    transactions: Type.Array(BankTransactionBatchItem, {
      minItems: 1,
      maxItems: MAX_BATCH,
      description: `The transactions to create: at least one, at most ${MAX_BATCH}.`,
    }),
  },
  { title: 'Bank account transaction batch', additionalProperties: false },
);
export type BankTransactionBatch = Static<typeof BankTransactionBatch>;

const VALIDATOR = 'WriteValidator';

/** Problems with a batch sent to an account, one item per problem, named by path (`transactions.2.amount`). */
export function batchProblems(accountId: string, body: unknown): ValidationItem[] {
  const problems = schemaProblems(BankTransactionBatch, body, VALIDATOR);
  if (problems.length > 0) return problems;
  const batch = body as BankTransactionBatch;
  if (batch.accountId != null && batch.accountId !== accountId) {
    problems.push({ itemId: 'accountId', message: `accountId must be the account of the path (${accountId})`, validatorName: VALIDATOR });
  }
  const seen = new Set<string>();
  batch.transactions.forEach(({ id }, i) => {
    if (id != null && seen.has(id)) {
      problems.push({ itemId: `transactions.${i}.id`, message: `id ${id} appears more than once in the batch`, validatorName: VALIDATOR });
    }
    if (id != null) seen.add(id);
  });
  return problems;
}

/** A batch's field for a field of the record one of its transactions becomes (`clearedOnDate` is `date`). */
export function batchFieldOf(recordField: string, index: number): string {
  const [head, ...rest] = recordField.split('.');
  if (head === 'accountId') return 'accountId';
  return ['transactions', index, head === 'clearedOnDate' ? 'date' : head, ...rest].join('.');
}

/** One transaction of a batch as the platform's `bankTransactions` record (without its id), with the id it asks for. */
export interface BatchRecord {
  /** The id the batch gives the transaction, or null for the platform to assign one. */
  id: string | null;
  record: Record<string, unknown>;
}

/** The batch's transactions as `bankTransactions` records of the account, in the batch's order. */
export function recordsOfBatch(accountId: string, batch: BankTransactionBatch): BatchRecord[] {
  return batch.transactions.map((t) => ({
    id: t.id ?? null,
    record: withoutNulls({
      accountId,
      amount: t.amount,
      clearedOnDate: t.date,
      description: t.description ?? null,
      balance: t.balance ?? null,
    }),
  }));
}

/**
 * Whether a stored push operation is a batch: only the batch path creates `bankTransactions` with a record id
 * (the account's), as a single create has none until the platform assigns it.
 */
export function isBatch(op: {
  data_type: string;
  operation: string;
  record_id: string | null;
}): op is { data_type: string; operation: string; record_id: string } {
  return op.data_type === 'bankTransactions' && op.operation === 'Create' && op.record_id !== null;
}
