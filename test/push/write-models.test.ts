import { KindGuard, type TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { WriteOperation } from '../../src/connectors/connector.js';
import { ACCOUNTING_DATA_TYPES, type DataType } from '../../src/codat-model/data-types.js';
import { accountingSandbox } from '../../src/connectors/sandbox/accounting/index.js';
import { accountingWrites } from '../../src/connectors/sandbox/accounting/writes.js';
import { bankingSandbox } from '../../src/connectors/sandbox/banking/index.js';
import { commerceSandbox } from '../../src/connectors/sandbox/commerce/index.js';
import { READ_ONLY_FIELDS, withoutNull } from '../../src/codat-model/write-schema.js';
import { referencedIds } from '../../src/push/write-validation.js';
import { asWritten, generated } from './sandbox-records.js';

/** Facts 1.8, "Supported writes (accounting)". */
const SUPPORTED: Record<string, string> = {
  bankAccounts: 'CU',
  bankTransactions: 'C',
  billCreditNotes: 'CU',
  billPayments: 'CD',
  bills: 'CUD',
  chartOfAccounts: 'C',
  creditNotes: 'CU',
  customers: 'CU',
  directCosts: 'CD',
  directIncomes: 'C',
  invoices: 'CUD',
  items: 'C',
  journalEntries: 'CD',
  journals: 'C',
  payments: 'C',
  purchaseOrders: 'CU',
  suppliers: 'CU',
  transfers: 'C',
};
const LETTER: Record<WriteOperation, string> = { Create: 'C', Update: 'U', Delete: 'D' };

const models = [...accountingWrites.values()];
const pathsOf = (type: DataType) => accountingWrites.get(type)!.references.map((r) => `${r.path.join('.')}→${r.dataType}`);

describe('accounting Sandbox write models', () => {
  it("are the connector's writes, exactly the types and operations of facts 1.8", () => {
    expect(accountingSandbox.writes).toBe(accountingWrites);
    const table = Object.fromEntries(models.map((m) => [m.dataType, m.operations.map((op) => LETTER[op]).join('')]));
    expect(table).toEqual(SUPPORTED);
    for (const [type, model] of accountingWrites) expect(model.dataType).toBe(type);
  });

  it('leave the banking and commerce Sandboxes read-only', () => {
    expect(bankingSandbox.writes?.size ?? 0).toBe(0);
    expect(commerceSandbox.writes?.size ?? 0).toBe(0);
  });

  it.each(models.map((m) => [m.dataType, m] as const))(
    '%s: served fields minus the read-only ones, same required fields',
    (type, model) => {
      const served = accountingSandbox.dataTypes.get(type)!.schema;
      const writable = Object.keys(served.properties).filter((f) => !(READ_ONLY_FIELDS as readonly string[]).includes(f));
      expect(Object.keys(model.schema.properties)).toEqual(writable);
      expect(model.schema.required ?? []).toEqual((served.required as string[]).filter((f) => writable.includes(f)));
      expect(model.schema.title).toBe(served.title);
    },
  );

  it.each(models.map((m) => [m.dataType, m] as const))('%s: every optional field at any depth also accepts null', (_type, model) => {
    const notNullable: string[] = [];
    const walk = (schema: TSchema, path: string) => {
      const node = withoutNull(schema);
      if (KindGuard.IsArray(node)) return walk(node.items, `${path}.*`);
      if (!KindGuard.IsObject(node)) return;
      const required = new Set(node.required ?? []);
      for (const [name, property] of Object.entries(node.properties)) {
        if (!required.has(name) && withoutNull(property) === property) notNullable.push(`${path}.${name}`);
        if (required.has(name) && withoutNull(property) !== property) notNullable.push(`${path}.${name} (required, yet nullable)`);
        walk(property, `${path}.${name}`);
      }
    };
    walk(model.schema, '');
    expect(notNullable).toEqual([]);
  });

  it('reference fields are string ids of data types the Sandbox serves', () => {
    for (const model of models) {
      for (const ref of model.references) {
        expect(ACCOUNTING_DATA_TYPES).toContain(ref.dataType);
        expect(accountingSandbox.dataTypes.has(ref.dataType)).toBe(true);
        let node: TSchema = model.schema;
        for (const step of ref.path) {
          node = withoutNull(node);
          node =
            step === '*'
              ? KindGuard.IsArray(node)
                ? node.items
                : (undefined as never)
              : KindGuard.IsObject(node)
                ? node.properties[step]
                : (undefined as never);
          expect(node, `${model.dataType}: ${ref.path.join('.')}`).toBeDefined();
        }
        expect(KindGuard.IsString(withoutNull(node)), `${model.dataType}: ${ref.path.join('.')}`).toBe(true);
      }
    }
  });

  it('invoices name their customer, items, accounts, tax rates, tracking categories and sales orders', () => {
    expect(pathsOf('invoices')).toEqual(
      expect.arrayContaining([
        'customerRef.id→customers',
        'salesOrderRefs.*.id→salesOrders',
        'lineItems.*.itemRef.id→items',
        'lineItems.*.accountRef.id→chartOfAccounts',
        'lineItems.*.taxRateRef.id→taxRates',
        'lineItems.*.trackingCategoryRefs.*.id→trackingCategories',
      ]),
    );
  });

  it('other types name what their schemas refer to, and leave out refs whose data type varies', () => {
    expect(pathsOf('bills')).toEqual(
      expect.arrayContaining([
        'supplierRef.id→suppliers',
        'purchaseOrderRefs.*.id→purchaseOrders',
        'lineItems.*.itemRef.id→items',
        'lineItems.*.accountRef.id→chartOfAccounts',
      ]),
    );
    expect(pathsOf('payments')).toEqual([
      'customerRef.id→customers',
      'accountRef.id→chartOfAccounts',
      'paymentMethodRef.id→paymentMethods',
    ]);
    expect(pathsOf('billPayments')).toEqual([
      'supplierRef.id→suppliers',
      'accountRef.id→chartOfAccounts',
      'paymentMethodRef.id→paymentMethods',
    ]);
    expect(pathsOf('journalEntries')).toEqual(['journalRef.id→journals', 'journalLines.*.accountRef.id→chartOfAccounts']);
    expect(pathsOf('bankTransactions')).toEqual(['accountId→bankAccounts']);
    expect(pathsOf('items')).toEqual([
      'billItem.accountRef.id→chartOfAccounts',
      'billItem.taxRateRef.id→taxRates',
      'invoiceItem.accountRef.id→chartOfAccounts',
      'invoiceItem.taxRateRef.id→taxRates',
    ]);
    expect(pathsOf('transfers')).toEqual([
      'from.accountRef.id→chartOfAccounts',
      'to.accountRef.id→chartOfAccounts',
      'trackingCategoryRefs.*.id→trackingCategories',
    ]);
    expect(pathsOf('customers')).toEqual([]);
    const all = models.flatMap((m) => m.references.map((r) => r.path.join('.')));
    for (const varying of [
      'contactRef',
      'recordRef',
      'links',
      'purchaseOrderLineRef',
      'createdFromLineRef',
      'depositedRecordRefs',
      'projectRef',
    ]) {
      expect(all.filter((p) => p.split('.').includes(varying))).toEqual([]);
    }
  });

  it.each(models.map((m) => [m.dataType, m] as const))(
    '%s: every id the generated records name exists in the named data type',
    (type, model) => {
      const missing: string[] = [];
      let checked = 0;
      for (const record of generated(type)) {
        for (const ref of referencedIds(model, asWritten(record))) {
          checked++;
          if (!generated(ref.dataType).some((r) => r.id === ref.id)) missing.push(`${record.id} ${ref.field} → ${ref.dataType} ${ref.id}`);
        }
      }
      expect(missing.slice(0, 5)).toEqual([]);
      if (model.references.length > 0 && type !== 'journals') expect(checked).toBeGreaterThan(0);
    },
  );
});
