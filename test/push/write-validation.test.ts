import { describe, expect, it } from 'vitest';
import type { DataType } from '../../src/codat-model/data-types.js';
import { accountingSandbox } from '../../src/connectors/sandbox/accounting/index.js';
import { accountingWrites } from '../../src/connectors/sandbox/accounting/writes.js';
import { asStored, referencedIds, validateWrittenRecord, withoutNulls } from '../../src/push/write-validation.js';
import { problems } from '../connectors/sandbox/accounting/helpers.js';
import { asWritten, generated } from './sandbox-records.js';

const model = (type: DataType) => accountingWrites.get(type)!;
const item = (itemId: string, message: string) => ({ itemId, message, validatorName: 'WriteValidator' });
const messages = (type: DataType, body: unknown) => validateWrittenRecord(model(type), body).map((i) => `${i.itemId}: ${i.message}`);

/** A valid invoice as a client would write it. */
function invoice(): Record<string, any> {
  return structuredClone(asWritten(generated('invoices')[0])) as Record<string, any>;
}

describe('validateWrittenRecord', () => {
  it.each([...accountingWrites.keys()])('accepts every record the Sandbox generates of %s, as written', (type) => {
    const records = generated(type);
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(validateWrittenRecord(model(type), asWritten(record)), String(record.id)).toEqual([]);
  });

  it('refuses a body that is not a JSON object, with one item', () => {
    for (const body of [null, undefined, [], [invoice()], 'invoice', 42, true]) {
      expect(validateWrittenRecord(model('invoices'), body)).toEqual([item('body', 'body must be an object')]);
    }
  });

  it('names each missing required field, at any depth', () => {
    const body = invoice();
    delete body.issueDate;
    delete body.status;
    delete body.lineItems[1].quantity;
    expect(validateWrittenRecord(model('invoices'), body)).toEqual([
      item('issueDate', 'issueDate is required'),
      item('status', 'status is required'),
      item('lineItems.1.quantity', 'lineItems.1.quantity is required'),
    ]);
    expect(messages('items', { name: 'Widget' })).toEqual([
      'itemStatus: itemStatus is required',
      'type: type is required',
      'isBillItem: isBillItem is required',
      'isInvoiceItem: isInvoiceItem is required',
    ]);
  });

  it('names fields of the wrong type', () => {
    const body = invoice();
    body.totalAmount = '100.00';
    body.lineItems[0].quantity = 'two';
    body.customerRef = 'Green Marine';
    body.lineItems[0].isDirectIncome = 'no';
    expect(messages('invoices', body).sort()).toEqual([
      'customerRef: customerRef must be an object or null',
      'lineItems.0.isDirectIncome: lineItems.0.isDirectIncome must be a boolean or null',
      'lineItems.0.quantity: lineItems.0.quantity must be a number',
      'totalAmount: totalAmount must be a number',
    ]);
  });

  it('lists the allowed values of an enum, without null', () => {
    expect(messages('invoices', { ...invoice(), status: 'Overdue' })).toEqual([
      'status: status must be one of: Unknown, Draft, Submitted, PartiallyPaid, Paid, Void',
    ]);
    expect(messages('bankAccounts', { accountType: 'Debit', status: 'Closed' })).toEqual([
      'status: status must be one of: Unknown, Active, Archived, Pending',
    ]);
    const body = invoice();
    body.lineItems[0].tracking.isBilledTo = 'Customer';
    expect(messages('invoices', body)).toEqual([
      'lineItems.0.tracking.isBilledTo: lineItems.0.tracking.isBilledTo must be one of: Unknown, NotApplicable, Project',
    ]);
  });

  it('reports each read-only field sent', () => {
    const body = { ...invoice(), id: 'x', modifiedDate: '2024-01-01T00:00:00Z', sourceModifiedDate: null, metadata: { isDeleted: false } };
    expect(validateWrittenRecord(model('invoices'), body)).toEqual([
      item('id', 'id is read-only and cannot be written'),
      item('modifiedDate', 'modifiedDate is read-only and cannot be written'),
      item('sourceModifiedDate', 'sourceModifiedDate is read-only and cannot be written'),
      item('metadata', 'metadata is read-only and cannot be written'),
    ]);
  });

  it('reports an unknown top-level field, but takes supplementalData on every type', () => {
    expect(messages('invoices', { ...invoice(), totalAmmount: 5 })).toEqual(['totalAmmount: totalAmmount is not a field of Invoice']);
    expect(messages('chartOfAccounts', { type: 'Asset', status: 'Active', colour: 'red' })).toEqual([
      'colour: colour is not a field of Account',
    ]);
    const supplementalData = { content: { orders: { orderNumber: 'A-1' } } };
    expect(messages('invoices', { ...invoice(), supplementalData })).toEqual([]);
    expect(messages('bankTransactions', { accountId: 'a', amount: 1, supplementalData })).toEqual([]);
    // Below the top level, unknown fields stay allowed, as in served records.
    const body = invoice();
    body.lineItems[0].colour = 'red';
    expect(messages('invoices', body)).toEqual([]);
  });

  it('takes null for every optional field, at any depth, but not for required ones', () => {
    const body = invoice();
    for (const field of [
      'invoiceNumber',
      'customerRef',
      'dueDate',
      'paidOnDate',
      'currency',
      'currencyRate',
      'paymentAllocations',
      'withholdingTax',
      'note',
      'salesOrderRefs',
    ])
      body[field] = null;
    Object.assign(body.lineItems[0], {
      description: null,
      discountAmount: null,
      accountRef: null,
      trackingCategoryRefs: null,
      isDirectIncome: null,
    });
    body.lineItems[1].taxRateRef = { id: null, name: null, effectiveTaxRate: null };
    body.lineItems[1].tracking.customerRef = null;
    body.supplementalData = null;
    expect(messages('invoices', body)).toEqual([]);
    expect(messages('invoices', { ...invoice(), issueDate: null, totalAmount: null })).toEqual([
      'issueDate: issueDate must be a string',
      'totalAmount: totalAmount must be a number',
    ]);
    const line = invoice();
    line.lineItems[0].unitAmount = null;
    line.lineItems[0].itemRef.id = null;
    expect(messages('invoices', line)).toEqual([
      'lineItems.0.unitAmount: lineItems.0.unitAmount must be a number',
      'lineItems.0.itemRef.id: lineItems.0.itemRef.id must be a string',
    ]);
  });

  it('accepts all the date forms of facts 2.2, in business dates and instants', () => {
    for (const date of [
      '2022-10-23T00:00:00Z',
      '2022-10-23',
      '2021-11-15T01:00:00',
      '2021-11-15T01:00:00-05:00',
      '2021-11-15T01:00:00.123+01:00',
    ]) {
      expect(messages('invoices', { ...invoice(), issueDate: date, dueDate: date }), date).toEqual([]);
      expect(messages('journalEntries', { postedOn: date, createdOn: date, updatedOn: date }), date).toEqual([]);
    }
  });

  it('refuses what is not a date', () => {
    for (const date of ['2022-13-01', '2022-02-30', '23/10/2022', '2022-10-23T25:00:00', 'yesterday', '', ' 2022-10-23']) {
      expect(messages('invoices', { ...invoice(), issueDate: date }), date).toEqual([
        'issueDate: issueDate must be an ISO-8601 date and time',
      ]);
    }
    expect(messages('invoices', { ...invoice(), issueDate: 20221023 })).toEqual(['issueDate: issueDate must be a string']);
  });

  it('reports every problem at once', () => {
    const body: Record<string, unknown> = { ...invoice(), id: 'x', extra: 1, status: 'Nope' };
    delete body.issueDate;
    expect(messages('invoices', body)).toEqual([
      'id: id is read-only and cannot be written',
      'extra: extra is not a field of Invoice',
      'issueDate: issueDate is required',
      'status: status must be one of: Unknown, Draft, Submitted, PartiallyPaid, Paid, Void',
    ]);
  });
});

describe('referencedIds', () => {
  it('finds ids in nested arrays, with the path of each', () => {
    const record = {
      customerRef: { id: 'c1' },
      lineItems: [
        { unitAmount: 1, quantity: 1, itemRef: { id: 'i1' }, trackingCategoryRefs: [{ id: 't1' }, { id: 't2' }] },
        {
          unitAmount: 1,
          quantity: 1,
          accountRef: { id: 'a1' },
          taxRateRef: { id: 'r1' },
          tracking: { categoryRefs: [{ id: 't3' }], customerRef: { id: 'c2' }, isBilledTo: 'Unknown', isRebilledTo: 'Unknown' },
        },
      ],
      salesOrderRefs: [{ id: 's1', dataType: 'salesOrders' }],
    };
    expect(referencedIds(model('invoices'), record)).toEqual(
      expect.arrayContaining([
        { field: 'customerRef.id', dataType: 'customers', id: 'c1' },
        { field: 'salesOrderRefs.0.id', dataType: 'salesOrders', id: 's1' },
        { field: 'lineItems.0.itemRef.id', dataType: 'items', id: 'i1' },
        { field: 'lineItems.0.trackingCategoryRefs.0.id', dataType: 'trackingCategories', id: 't1' },
        { field: 'lineItems.0.trackingCategoryRefs.1.id', dataType: 'trackingCategories', id: 't2' },
        { field: 'lineItems.1.accountRef.id', dataType: 'chartOfAccounts', id: 'a1' },
        { field: 'lineItems.1.taxRateRef.id', dataType: 'taxRates', id: 'r1' },
        { field: 'lineItems.1.tracking.categoryRefs.0.id', dataType: 'trackingCategories', id: 't3' },
        { field: 'lineItems.1.tracking.customerRef.id', dataType: 'customers', id: 'c2' },
      ]),
    );
    expect(referencedIds(model('invoices'), record)).toHaveLength(9);
  });

  it('skips empty, null, non-string and misplaced ids', () => {
    const record = {
      customerRef: { id: '' },
      lineItems: [{ itemRef: { id: null } }, { itemRef: { id: 42 } }, null, { accountRef: 'a1' }],
      salesOrderRefs: { id: 's1' },
    };
    expect(referencedIds(model('invoices'), record)).toEqual([]);
    expect(referencedIds(model('bankTransactions'), { accountId: 'b1', amount: 1 })).toEqual([
      { field: 'accountId', dataType: 'bankAccounts', id: 'b1' },
    ]);
    expect(
      referencedIds(model('payments'), { customerRef: { id: 'c' }, lines: [{ amount: 1, links: [{ type: 'Invoice', id: 'inv' }] }] }),
    ).toEqual([{ field: 'customerRef.id', dataType: 'customers', id: 'c' }]);
  });
});

describe('withoutNulls and asStored', () => {
  it('drops nulls at any depth and keeps everything else', () => {
    const record = { a: null, b: 0, c: '', d: false, e: { f: null, g: [{ h: null, i: 1 }, 2] }, j: [] };
    expect(withoutNulls(record)).toEqual({ b: 0, c: '', d: false, e: { g: [{ i: 1 }, 2] }, j: [] });
    expect(record.a).toBeNull();
  });

  it('stores a written record in the form it is served in', () => {
    const written = invoice();
    Object.assign(written, { issueDate: '2022-10-23', dueDate: '2022-11-01T09:30:00-05:00', note: null, paidOnDate: null });
    written.paymentAllocations = [
      { payment: { paidOnDate: '2022-11-02T00:00:00Z', note: null }, allocation: { allocatedOnDate: '2022-11-02' } },
    ];
    const stored = asStored(model('invoices'), written);
    expect(stored).toMatchObject({ issueDate: '2022-10-23T00:00:00', dueDate: '2022-11-01T09:30:00' });
    expect(stored).not.toHaveProperty('note');
    expect(stored.paymentAllocations).toEqual([
      { payment: { paidOnDate: '2022-11-02T00:00:00' }, allocation: { allocatedOnDate: '2022-11-02T00:00:00' } },
    ]);
    expect(
      problems(accountingSandbox.dataTypes.get('invoices')!.schema, { ...stored, id: 'new', sourceModifiedDate: '2024-01-01T00:00:00Z' }),
    ).toEqual([]);

    const entry = asStored(model('journalEntries'), { postedOn: '2022-10-23', createdOn: '2022-10-23T10:00:00+02:00' });
    expect(entry).toEqual({ postedOn: '2022-10-23T00:00:00', createdOn: '2022-10-23T08:00:00Z' });
  });

  it.each([...accountingWrites.keys()])("leaves the Sandbox's own %s unchanged", (type) => {
    for (const record of generated(type).slice(0, 20)) expect(asStored(model(type), asWritten(record))).toEqual(asWritten(record));
  });
});
