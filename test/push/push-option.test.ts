import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { DataType } from '../../src/codat-model/data-types.js';
import { accountingWrites } from '../../src/connectors/sandbox/accounting/writes.js';
import { PushOption, pushOption } from '../../src/push/push-option.js';
import { codatOasOrSkip, oasErrors, oasValidator, type OasFile } from '../helpers/oas.js';

const validateOwn = addFormats.default(new Ajv.default({ allErrors: true, strict: false })).compile(PushOption);
const validateCodat = codatOasOrSkip() ? oasValidator('Codat-Platform.json' as OasFile, 'PushOption') : undefined;

interface Entry {
  type: string;
  displayName: string;
  description?: string;
  required: boolean;
  properties?: Record<string, Entry> | null;
  options?: { value?: string; displayName?: string; type?: string; required?: boolean }[] | null;
}

const option = (type: DataType) => pushOption(accountingWrites.get(type)!, type) as Entry & { validation?: unknown };

function* entries(properties: Record<string, Entry> | null | undefined, path = ''): Generator<[string, Entry]> {
  for (const [name, entry] of Object.entries(properties ?? {})) {
    yield [`${path}${name}`, entry];
    yield* entries(entry.properties, `${path}${name}.`);
  }
}

describe('pushOption', () => {
  it.each([...accountingWrites.keys()])("%s: matches our PushOption schema and Codat's", (type) => {
    const doc = option(type);
    expect(validateOwn(doc), JSON.stringify(validateOwn.errors?.slice(0, 3))).toBe(true);
    if (validateCodat) expect(validateCodat(doc), oasErrors(validateCodat)).toBe(true);
    expect(doc).toMatchObject({ type: 'Object', displayName: type, required: true });
    expect(doc.description).toMatch(/^The fields of an? [a-z ]+ that the platform accepts when you create( or update)? one\.$/);
  });

  it.each([...accountingWrites.keys()])('%s: lists every writable field, with its required flag, and no read-only one', (type) => {
    const model = accountingWrites.get(type)!;
    const doc = option(type);
    expect(Object.keys(doc.properties ?? {})).toEqual(Object.keys(model.schema.properties));
    for (const field of ['id', 'modifiedDate', 'sourceModifiedDate', 'metadata']) expect(doc.properties).not.toHaveProperty(field);
    const required = new Set<string>(model.schema.required ?? []);
    for (const [name, entry] of Object.entries(doc.properties ?? {})) expect(entry.required, name).toBe(required.has(name));
    for (const [path, entry] of entries(doc.properties)) {
      expect(entry.description, path).toMatch(/^The .+\.$/);
      expect(entry.displayName, path).toMatch(/^[A-Z]/);
    }
  });

  it('schemas that would catch a malformed option (property entries need a description)', () => {
    const bad = {
      type: 'Object',
      displayName: 'x',
      required: true,
      properties: { a: { type: 'String', displayName: 'A', required: false } },
    };
    expect(validateOwn(bad)).toBe(false);
    expect(validateOwn({ ...bad, properties: null })).toBe(true);
    if (!validateCodat) return;
    expect(validateCodat(bad)).toBe(false);
    expect(validateCodat({ ...bad, properties: null })).toBe(true);
    expect(validateCodat({ ...bad, properties: null, type: 'Text' })).toBe(false);
  });

  it('describes the fields of an invoice', () => {
    const properties = option('invoices').properties!;
    for (const field of ['issueDate', 'totalTaxAmount', 'totalAmount', 'amountDue', 'status'])
      expect(properties[field].required, field).toBe(true);
    for (const field of ['dueDate', 'customerRef', 'lineItems', 'note', 'supplementalData'])
      expect(properties[field].required, field).toBe(false);
    expect(properties.issueDate).toMatchObject({ type: 'DateTime', displayName: 'Issue date' });
    expect(properties.totalAmount).toMatchObject({ type: 'Number', displayName: 'Total amount' });
    expect(properties.customerRef).toMatchObject({ type: 'Object', displayName: 'Customer reference' });
    expect(properties.customerRef.properties!.id).toMatchObject({ type: 'String', displayName: 'ID', required: true });
    expect(properties.customerRef.properties!.id.description).toContain('customers');
    expect(properties.currency.description).toBe('The currency of the invoice (ISO 4217 currency code).');
    expect(properties.status.options).toEqual(
      ['Unknown', 'Draft', 'Submitted', 'PartiallyPaid', 'Paid', 'Void'].map((value) => ({
        value,
        type: 'String',
        displayName: value === 'PartiallyPaid' ? 'Partially paid' : value,
        required: false,
      })),
    );
    const lines = properties.lineItems;
    expect(lines).toMatchObject({ type: 'Array', displayName: 'Line items' });
    expect(lines.properties!.quantity).toMatchObject({ type: 'Number', required: true, description: 'The quantity of the line item.' });
    expect(lines.properties!.isDirectIncome).toMatchObject({ type: 'Boolean', required: false });
    expect(lines.properties!.tracking.properties!.isBilledTo.options!.map((o) => o.value)).toEqual(['Unknown', 'NotApplicable', 'Project']);
  });

  it('lists the reference fields under validation information, only where there are some', () => {
    expect(option('invoices').validation).toEqual({
      warnings: [],
      information: expect.arrayContaining([
        { field: 'customerRef.id', details: 'Must be the id of an existing customers record of this connection.' },
        { field: 'lineItems.itemRef.id', details: 'Must be the id of an existing items record of this connection.' },
      ]),
    });
    expect(option('customers')).not.toHaveProperty('validation');
  });
});
