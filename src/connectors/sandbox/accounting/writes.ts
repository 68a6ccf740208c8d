import { KindGuard, type TSchema } from '@sinclair/typebox';
import type { ReferenceField, WriteModel, WriteOperation } from '../../connector.js';
import type { GeneratedSource } from '../generated-source.js';
import type { DataType } from '../../../codat-model/data-types.js';
import { withoutNull, writeSchemaOf } from '../../../codat-model/write-schema.js';
import { sandboxSubmit } from './sandbox-submit.js';
import { bankAccounts } from './types/bank-accounts.js';
import { billCreditNotes } from './types/bill-credit-notes.js';
import { billPayments } from './types/bill-payments.js';
import { bills } from './types/bills.js';
import { bankTransactionsSource } from './types/cash-transactions.js';
import { creditNotes } from './types/credit-notes.js';
import { directCosts, directIncomes, transfers } from './types/direct.js';
import { invoices } from './types/invoices.js';
import { items } from './types/items.js';
import { journalEntries } from './types/journal-entries.js';
import { customers, suppliers } from './types/parties.js';
import { payments } from './types/payments.js';
import { purchaseOrders } from './types/purchase-orders.js';
import { chartOfAccounts, journalsSource } from './types/reference.js';

/**
 * What the accounting Sandbox accepts writes of: the types and operations of facts 1.8's "Supported writes"
 * table, each written in the shape it is served in (see `writeSchemaOf`).
 */

/**
 * Codat names a reference after what it refers to, at whatever depth it appears (`lineItems[].accountRef`,
 * `paymentAllocations[].payment.accountRef`, `billItem.taxRateRef`, ...), so the references of a type are found
 * by walking its schema for these names. Refs whose target varies per record (`contactRef`, `recordRef`,
 * payment `links`, line refs to purchase orders or bills) are left out: no one data type can be checked.
 */
const REFERENCE_TARGETS: Readonly<Record<string, DataType>> = {
  accountRef: 'chartOfAccounts',
  categoryRefs: 'trackingCategories',
  customerRef: 'customers',
  itemRef: 'items',
  journalRef: 'journals',
  paymentMethodRef: 'paymentMethods',
  purchaseOrderRefs: 'purchaseOrders',
  salesOrderRefs: 'salesOrders',
  supplierRef: 'suppliers',
  taxRateRef: 'taxRates',
  trackingCategoryRefs: 'trackingCategories',
};

/** References held in plain id fields rather than `…Ref` objects. */
const ID_FIELDS: Partial<Record<DataType, ReferenceField[]>> = {
  bankTransactions: [{ path: ['accountId'], dataType: 'bankAccounts' }],
  journals: [{ path: ['parentId'], dataType: 'journals' }],
};

const SUPPORTED: [GeneratedSource, WriteOperation[]][] = [
  [bankAccounts, ['Create', 'Update']],
  [bankTransactionsSource, ['Create']],
  [billCreditNotes, ['Create', 'Update']],
  [billPayments, ['Create', 'Delete']],
  [bills, ['Create', 'Update', 'Delete']],
  [chartOfAccounts, ['Create']],
  [creditNotes, ['Create', 'Update']],
  [customers, ['Create', 'Update']],
  [directCosts, ['Create', 'Delete']],
  [directIncomes, ['Create']],
  [invoices, ['Create', 'Update', 'Delete']],
  [items, ['Create']],
  [journalEntries, ['Create', 'Delete']],
  [journalsSource, ['Create']],
  [payments, ['Create']],
  [purchaseOrders, ['Create', 'Update']],
  [suppliers, ['Create', 'Update']],
  [transfers, ['Create']],
];

function writeModel(source: GeneratedSource, operations: WriteOperation[]): WriteModel {
  const schema = writeSchemaOf(source.schema);
  return {
    dataType: source.dataType,
    operations,
    schema,
    references: [...(ID_FIELDS[source.dataType] ?? []), ...namedReferences(schema, [])],
    keptByService: true,
    submit: (ctx, write) => sandboxSubmit(source.dataType, ctx, write),
  };
}

/** Every `…Ref(s)` object below `schema` named in REFERENCE_TARGETS, as the path to its `id`. */
function namedReferences(schema: TSchema, path: string[]): ReferenceField[] {
  const node = withoutNull(schema);
  if (KindGuard.IsArray(node)) return namedReferences(node.items, [...path, '*']);
  if (!KindGuard.IsObject(node)) return [];
  return Object.entries(node.properties).flatMap(([name, property]) => {
    const target = REFERENCE_TARGETS[name];
    if (!target) return namedReferences(property, [...path, name]);
    const ref = withoutNull(property);
    return [{ path: [...path, name, ...(KindGuard.IsArray(ref) ? ['*'] : []), 'id'], dataType: target }];
  });
}

export const accountingWrites: ReadonlyMap<DataType, WriteModel> = new Map(
  SUPPORTED.map(([source, operations]) => [source.dataType, writeModel(source, operations)]),
);
