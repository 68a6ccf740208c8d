import { describe, expect, it } from 'vitest';
import type { DataType } from '../../../../src/codat-model/data-types.js';
import { BANKING_DATA_TYPES } from '../../../../src/codat-model/data-types.js';
import { bankingSandbox } from '../../../../src/connectors/sandbox/banking/index.js';
import { codatOasOrSkip, oasValidator } from '../../../helpers/oas.js';
import { collect, expectMovement, expectOasPageValid, expectOasValid, expectWellFormed, served } from './checks.js';

const OAS_SCHEMA: Record<string, [record: string, page: string]> = {
  'banking-accounts': ['Account', 'Accounts'],
  'banking-accountBalances': ['AccountBalance', 'AccountBalances'],
  'banking-transactions': ['Transaction', 'Transactions'],
  'banking-transactionCategories': ['TransactionCategory', 'TransactionCategories'],
};
const source = (dataType: DataType) => bankingSandbox.dataTypes.get(dataType)!;
const settings = (invoices: number, seed = 11) => ({ seed, invoices, asOf: '2024-05-15' });

describe('banking Sandbox: shape', () => {
  it('is the bsbx platform and provides every banking data type', () => {
    expect(bankingSandbox.info).toMatchObject({ key: 'bsbx', name: 'Banking Sandbox', sourceType: 'Banking' });
    expect([...bankingSandbox.dataTypes.keys()].sort()).toEqual([...BANKING_DATA_TYPES].sort());
    expect(bankingSandbox.info.dataTypes).toEqual(BANKING_DATA_TYPES);
    for (const [dataType, s] of bankingSandbox.dataTypes) expect(s.dataType).toBe(dataType);
  });

  it.each([
    [0, 200],
    [1, 200],
    [3, 200],
    [0, 1500],
    [3, 1500],
    [1, 6000],
  ])('epoch %i, %i invoices: ascending unique ids, TypeBox schema and Codat OAS for every type', (epoch, invoices) => {
    {
      for (const dataType of BANKING_DATA_TYPES) {
        const records = collect(source(dataType), settings(invoices), epoch);
        expect(records.length).toBeGreaterThan(0);
        expectWellFormed(records, source(dataType));
        const [schema, page] = OAS_SCHEMA[dataType];
        expectOasValid(records, source(dataType), 'Codat-Banking.json', schema);
        expectOasPageValid(records, source(dataType), 'Codat-Banking.json', page);
      }
    }
  });

  it.skipIf(!codatOasOrSkip())("has an OAS validator that rejects records breaking Codat's schemas (so passing means something)", () => {
    const txn = served(collect(source('banking-transactions'), settings(200), 0)[0], source('banking-transactions').schema);
    const validate = oasValidator('Codat-Banking.json', 'Transaction');
    expect(validate(txn)).toBe(true);
    expect(validate({ ...txn, code: 'Bogus' })).toBe(false);
    expect(validate({ ...txn, amount: '12.00' })).toBe(false);
    expect(validate({ ...txn, merchantName: null })).toBe(true);
    expect(validate({ ...txn, currency: null })).toBe(false);
    const account = served(collect(source('banking-accounts'), settings(200), 0)[0], source('banking-accounts').schema) as any;
    expect(oasValidator('Codat-Banking.json', 'Account')({ ...account, balance: { ...account.balance, extra: 1 } })).toBe(false);
    const order = oasValidator('Codat-Commerce.json', 'Order');
    expect(order({ id: 'o', payments: [{ id: 'p', status: 'Settled' }] })).toBe(false);
    expect(order({ id: 'o', payments: [{ id: 'p', status: 'Paid', type: null }] })).toBe(true);
  });

  it('is deterministic: same settings and epoch, same records; another seed, another company', () => {
    for (const dataType of BANKING_DATA_TYPES) {
      const a = collect(source(dataType), settings(300), 2);
      const b = collect(source(dataType), settings(300), 2);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }
    const other = collect(source('banking-transactions'), settings(300, 12), 0);
    const mine = collect(source('banking-transactions'), settings(300), 0);
    const amounts = (records: typeof mine) => records.slice(0, 20).map((r) => r.data.amount);
    expect(amounts(other)).not.toEqual(amounts(mine));
  });

  it("has the books' bank accounts: five, and the deposit accounts opened later", () => {
    expect(collect(source('banking-accounts'), settings(200), 0)).toHaveLength(5);
    expect(collect(source('banking-accounts'), settings(10_000), 0)).toHaveLength(5);
    expect(collect(source('banking-accounts'), settings(200), 2)).toHaveLength(7);
  });

  it('looks like a bank feed: currencies, institutions, merchants, codes and categories', () => {
    const accounts = collect(source('banking-accounts'), settings(200), 0).map((r) => r.data as any);
    expect(new Set(accounts.map((a) => a.currency))).toEqual(new Set(['GBP', 'USD', 'EUR']));
    for (const a of accounts) {
      expect(a.institution.name).toBeTruthy();
      if (a.currency === 'GBP' && a.type === 'Debit') expect(a.identifiers.iban).toMatch(/^GB\d{2} [A-Z]{4}/);
      if (a.type === 'Credit') expect(a.identifiers.maskedAccountNumber).toMatch(/\d{4}$/);
    }
    const txns = collect(source('banking-transactions'), settings(1500), 0).map((r) => r.data as any);
    const codes = new Set(txns.map((t) => t.code));
    for (const code of ['Purchase', 'Credit', 'DirectDebit', 'Transfer', 'Payment', 'Fee']) expect(codes.has(code)).toBe(true);
    expect(txns.every((t) => typeof t.description === 'string' && t.description.length > 5)).toBe(true);
    // The customers and suppliers the books name.
    expect(new Set(txns.map((t) => t.merchantName).filter(Boolean)).size).toBeGreaterThan(30);
    expect(txns.filter((t) => t.code === 'Purchase').every((t) => t.amount < 0)).toBe(true);
    expect(txns.every((t) => t.authorizedDate <= t.postedDate)).toBe(true);
    // Card purchases are authorised before some of them post.
    expect(txns.some((t) => t.code === 'Purchase' && t.authorizedDate < t.postedDate)).toBe(true);
  });
});

describe('banking Sandbox: epochs', () => {
  it('each epoch appends, changes and deletes records; deletions stick', () => {
    const asOf = '2024-05-15';
    for (const dataType of BANKING_DATA_TYPES) {
      const byEpoch = [0, 1, 2, 3].map((e) => collect(source(dataType), settings(1500), e));
      const deletedEarlier = new Set<string>();
      for (let e = 0; e < 3; e++) {
        const move = expectMovement(byEpoch[e], byEpoch[e + 1], asOf, e + 1);
        expect(move.added.length, `${dataType} adds at epoch ${e + 1}`).toBeGreaterThanOrEqual(1);
        for (const id of move.added) expect(deletedEarlier.has(id)).toBe(false);
        move.deleted.forEach((id) => deletedEarlier.add(id));
        if (dataType === 'banking-transactions') {
          // The books' new payments reach the bank, deleted documents' leave it, and about 2% of lines are filed
          // under another category: a line changes in nothing else (its day, amount and charge stay as made).
          expect(move.added.length).toBeGreaterThanOrEqual(10);
          expect(move.deleted.length).toBeGreaterThanOrEqual(1);
          expect(move.changed.length).toBeGreaterThanOrEqual(20);
          const before = new Map(byEpoch[e].map((r) => [r.id, r.data]));
          for (const id of move.changed) {
            const after = byEpoch[e + 1].find((r) => r.id === id)!.data;
            const { transactionCategoryRef: _a, sourceModifiedDate: _b, ...rest } = after as Record<string, unknown>;
            const { transactionCategoryRef: _c, sourceModifiedDate: _d, ...was } = before.get(id) as Record<string, unknown>;
            expect(rest, id).toEqual(was);
          }
        }
      }
      // Deleted records never come back.
      for (const id of deletedEarlier) expect(byEpoch[3].some((r) => r.id === id)).toBe(false);
    }
  });
});
