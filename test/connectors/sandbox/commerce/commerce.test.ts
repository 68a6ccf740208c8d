import { describe, expect, it } from 'vitest';
import type { DataType } from '../../../../src/codat-model/data-types.js';
import { COMMERCE_DATA_TYPES } from '../../../../src/codat-model/data-types.js';
import { commerceSandbox } from '../../../../src/connectors/sandbox/commerce/index.js';
import { collect, expectMovement, expectOasPageValid, expectOasValid, expectWellFormed } from '../banking/checks.js';

/** OAS record and page schema per data type (company info is a single record, not a page). */
const OAS_SCHEMA: Record<string, [record: string, page: string | null]> = {
  'commerce-companyInfo': ['CompanyInfo', null],
  'commerce-customers': ['Customer', 'Customers'],
  'commerce-disputes': ['Dispute', 'Disputes'],
  'commerce-locations': ['Location', 'Locations'],
  'commerce-orders': ['Order', 'Orders'],
  'commerce-paymentMethods': ['PaymentMethod', 'PaymentMethods'],
  'commerce-payments': ['Payment', 'Payments'],
  'commerce-productCategories': ['ProductCategory', 'ProductCategories'],
  'commerce-products': ['Product', 'Products'],
  'commerce-taxComponents': ['TaxComponent', 'TaxComponents'],
  'commerce-transactions': ['Transaction', 'Transactions'],
};
const source = (dataType: DataType) => commerceSandbox.dataTypes.get(dataType)!;
const settings = (invoices: number, seed = 21) => ({ seed, invoices, asOf: '2024-05-15' });

describe('commerce Sandbox: shape', () => {
  it('is the aiwb platform and provides every commerce data type', () => {
    expect(commerceSandbox.info).toMatchObject({ key: 'aiwb', name: 'Commerce Sandbox', sourceType: 'Commerce' });
    expect([...commerceSandbox.dataTypes.keys()].sort()).toEqual([...COMMERCE_DATA_TYPES].sort());
    expect(commerceSandbox.info.dataTypes).toEqual(COMMERCE_DATA_TYPES);
    for (const [dataType, s] of commerceSandbox.dataTypes) expect(s.dataType).toBe(dataType);
  });

  it.each([
    [0, 200],
    [1, 200],
    [3, 200],
    [1, 2500],
  ])('epoch %i, %i invoices: ascending unique ids, TypeBox schema and Codat OAS for every type', (epoch, invoices) => {
    {
      for (const dataType of COMMERCE_DATA_TYPES) {
        const records = collect(source(dataType), settings(invoices), epoch);
        expect(records.length, dataType).toBeGreaterThan(0);
        expectWellFormed(records, source(dataType));
        const [schema, page] = OAS_SCHEMA[dataType];
        expectOasValid(records, source(dataType), 'Codat-Commerce.json', schema);
        if (page) expectOasPageValid(records, source(dataType), 'Codat-Commerce.json', page);
      }
    }
  });

  it('serves company info as the single record `companyInfo`', () => {
    const records = collect(source('commerce-companyInfo'), settings(200), 0);
    expect(records.map((r) => r.id)).toEqual(['companyInfo']);
    expect(records[0].data).toMatchObject({ companyName: expect.any(String), baseCurrency: 'GBP' });
  });

  it('is deterministic: same settings and epoch, same records; another seed, another shop', () => {
    for (const dataType of COMMERCE_DATA_TYPES) {
      const a = collect(source(dataType), settings(300), 2);
      const b = collect(source(dataType), settings(300), 2);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }
    const mine = collect(source('commerce-orders'), settings(300), 0)[0].data;
    const other = collect(source('commerce-orders'), settings(300, 22), 0)[0].data;
    expect(JSON.stringify(other.orderLineItems)).not.toBe(JSON.stringify(mine.orderLineItems));
  });

  it('scales with invoices: one order per invoice, other types in proportion', () => {
    for (const invoices of [200, 2500]) {
      expect(collect(source('commerce-orders'), settings(invoices), 0)).toHaveLength(invoices);
    }
    const count = (dataType: DataType, invoices: number) => collect(source(dataType), settings(invoices), 0).length;
    expect(count('commerce-customers', 2500)).toBe(625);
    expect(count('commerce-products', 2500)).toBe(400);
    expect(count('commerce-locations', 200)).toBe(4);
    expect(count('commerce-payments', 2500)).toBeGreaterThan(2500);
    expect(count('commerce-transactions', 2500)).toBeGreaterThan(2500);
    expect(count('commerce-disputes', 2500)).toBeGreaterThan(10);
  });
});

describe('commerce Sandbox: epochs', () => {
  it('each epoch appends, changes and deletes records; deletions stick', () => {
    const asOf = '2024-05-15';
    for (const dataType of COMMERCE_DATA_TYPES) {
      const byEpoch = [0, 1, 2, 3].map((e) => collect(source(dataType), settings(2500), e));
      const deletedEarlier = new Set<string>();
      let changed = 0;
      for (let e = 0; e < 3; e++) {
        const move = expectMovement(byEpoch[e], byEpoch[e + 1], asOf, e + 1);
        if (dataType !== 'commerce-companyInfo') expect(move.added.length, `${dataType} adds at epoch ${e + 1}`).toBeGreaterThanOrEqual(1);
        for (const id of move.added) expect(deletedEarlier.has(id)).toBe(false);
        move.deleted.forEach((id) => deletedEarlier.add(id));
        changed += move.changed.length;
        if (['commerce-orders', 'commerce-customers', 'commerce-payments', 'commerce-transactions'].includes(dataType)) {
          expect(move.added.length, `${dataType} added`).toBeGreaterThanOrEqual(6);
          expect(move.deleted.length, `${dataType} deleted`).toBeGreaterThanOrEqual(1);
        }
      }
      // Payments change when captured (authorised card payments of new orders, at the next epoch).
      if (['commerce-orders', 'commerce-customers', 'commerce-payments', 'commerce-products'].includes(dataType)) {
        expect(changed, `${dataType} changed`).toBeGreaterThanOrEqual(10);
      }
      for (const id of deletedEarlier) expect(byEpoch[3].some((r) => r.id === id)).toBe(false);
    }
  });
});
