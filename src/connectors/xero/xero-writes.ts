import type { PlatformWrite, ReadContext, WriteModel } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import type { DataType } from '../../codat-model/data-types.js';
import { writeSchemaOf } from '../../codat-model/write-schema.js';
import { CustomerSchema, InvoiceSchema, PaymentSchema } from '../../codat-model/accounting/sales.js';
import { SupplierSchema } from '../../codat-model/accounting/purchases.js';
import { tenantEndpoint, xeroGet, xeroWrite } from './xero-api.js';
import { customerRecord, invoiceRecord, paymentRecord, supplierRecord, type XeroRecord } from './xero-records.js';

/*
 * Write-back to Xero: invoices, contacts (as customers and suppliers) and payments. Each write carries its push
 * operation's id as Xero's `Idempotency-Key`, so a write retried after a lost answer is made once. Xero's answer
 * is the record as it now holds it, mapped back to Codat's shape.
 */

type Data = Record<string, unknown>;

const day = (value: unknown): string | undefined => (typeof value === 'string' && value.length >= 10 ? value.slice(0, 10) : undefined);
const ref = (value: unknown): Data => (value && typeof value === 'object' ? (value as Data) : {});

/** Codat's invoice status as Xero's: what a new invoice may be (a draft, or approved). */
const INVOICE_STATUS: Record<string, string> = {
  Draft: 'DRAFT',
  Submitted: 'AUTHORISED',
  PartiallyPaid: 'AUTHORISED',
  Paid: 'AUTHORISED',
  Void: 'VOIDED',
};

/**
 * Codat's invoice as Xero's. `itemCodes`: the code of each item the lines name (Xero's lines name an item by code).
 * A new invoice's line amounts exclude tax, as Codat's unit amounts do; an update keeps the invoice's own setting.
 */
function xeroInvoice(record: Data, id: string | null, itemCodes: ReadonlyMap<string, string>): Data {
  const lines = Array.isArray(record.lineItems) ? (record.lineItems as Data[]) : [];
  return {
    ...(id ? { InvoiceID: id } : {}),
    Type: 'ACCREC',
    Contact: { ContactID: ref(record.customerRef).id },
    Date: day(record.issueDate),
    DueDate: day(record.dueDate),
    InvoiceNumber: record.invoiceNumber ?? undefined,
    Reference: record.note ?? undefined,
    CurrencyCode: record.currency ?? undefined,
    Status: INVOICE_STATUS[String(record.status)] ?? 'DRAFT',
    LineAmountTypes: id ? undefined : 'Exclusive',
    LineItems: lines.map((l) => ({
      Description: l.description ?? undefined,
      Quantity: l.quantity,
      UnitAmount: l.unitAmount,
      AccountID: ref(l.accountRef).id ?? undefined,
      TaxType: ref(l.taxRateRef).id ?? undefined,
      ItemCode: itemCodes.get(String(ref(l.itemRef).id)) ?? undefined,
    })),
  };
}

function xeroContact(record: Data, id: string | null, name: unknown): Data {
  const address = Array.isArray(record.addresses) ? (record.addresses as Data[]) : [];
  const [first, ...rest] = String(record.contactName ?? '')
    .split(' ')
    .filter(Boolean);
  return {
    ...(id ? { ContactID: id } : {}),
    Name: name,
    FirstName: first,
    LastName: rest.length > 0 ? rest.join(' ') : undefined,
    EmailAddress: record.emailAddress ?? undefined,
    TaxNumber: record.taxNumber ?? undefined,
    CompanyNumber: record.registrationNumber ?? undefined,
    DefaultCurrency: record.defaultCurrency ?? undefined,
    ContactStatus: record.status === 'Archived' ? 'ARCHIVED' : 'ACTIVE',
    Phones: record.phone ? [{ PhoneType: 'DEFAULT', PhoneNumber: record.phone }] : undefined,
    // Only when the record has addresses: an update without them keeps the contact's.
    Addresses: (Array.isArray(record.addresses) ? address : undefined)?.map((a) => ({
      AddressType: a.type === 'Delivery' ? 'STREET' : 'POBOX',
      AddressLine1: a.line1 ?? undefined,
      AddressLine2: a.line2 ?? undefined,
      City: a.city ?? undefined,
      Region: a.region ?? undefined,
      PostalCode: a.postalCode ?? undefined,
      Country: a.country ?? undefined,
    })),
  };
}

function xeroPayment(record: Data): Data {
  const links = (Array.isArray(record.lines) ? (record.lines as Data[]) : []).flatMap((l) =>
    Array.isArray(l.links) ? (l.links as Data[]) : [],
  );
  const invoice = links.find((l) => l.type === 'Invoice');
  if (!invoice?.id) throw new ConnectorError('invalid', 'a payment to Xero names the invoice it pays in lines[].links[] (type Invoice)');
  return {
    Invoice: { InvoiceID: invoice.id },
    Account: { AccountID: ref(record.accountRef).id },
    Date: day(record.date),
    Amount: record.totalAmount ?? (Array.isArray(record.lines) ? (record.lines as Data[])[0]?.amount : undefined),
    Reference: record.reference ?? undefined,
    CurrencyRate: record.currencyRate ?? undefined,
  };
}

/** Sends one record (in `collection`, e.g. `Invoices`) and maps Xero's answer back. */
async function send(
  ctx: ReadContext,
  write: PlatformWrite,
  target: { resource: string; idField: string },
  body: Data,
  map: (x: XeroRecord) => Data,
): Promise<{ recordId: string; record: Data | null }> {
  const endpoint = tenantEndpoint(ctx);
  const update = write.operation === 'Update' && write.recordId;
  const path = update ? `${target.resource}/${encodeURIComponent(write.recordId!)}` : target.resource;
  const answer = await xeroWrite<Record<string, XeroRecord[]>>(
    endpoint,
    update ? 'POST' : 'PUT',
    path,
    { [target.resource]: [body] },
    write.key,
  );
  const saved = answer[target.resource]?.[0];
  if (!saved?.[target.idField])
    throw new ConnectorError('unavailable', `Xero accepted the ${target.resource} write without answering the record`);
  const id = String(saved[target.idField]);
  return { recordId: id, record: { id, ...map(saved) } };
}

/** The codes of the items an invoice's lines name by id, looked up at Xero (a line names an item by its code). */
async function itemCodesOf(ctx: ReadContext, record: Data): Promise<Map<string, string>> {
  const ids = new Set(
    (Array.isArray(record.lineItems) ? (record.lineItems as Data[]) : [])
      .map((l) => ref(l.itemRef).id)
      .filter((id): id is string => typeof id === 'string'),
  );
  const codes = new Map<string, string>();
  const endpoint = tenantEndpoint(ctx);
  for (const id of ids) {
    const answer = await xeroGet<{ Items?: XeroRecord[] }>(endpoint, `Items/${encodeURIComponent(id)}`);
    const code = answer.Items?.[0]?.Code;
    if (typeof code !== 'string') throw new ConnectorError('invalid', `Xero has no item with id ${id}`);
    codes.set(id, code);
  }
  return codes;
}

const invoices: WriteModel = {
  dataType: 'invoices',
  operations: ['Create', 'Update'],
  schema: writeSchemaOf(InvoiceSchema),
  references: [{ path: ['customerRef', 'id'], dataType: 'customers' }],
  submit: async (ctx, write) =>
    send(
      ctx,
      write,
      { resource: 'Invoices', idField: 'InvoiceID' },
      xeroInvoice(write.record ?? {}, write.recordId, await itemCodesOf(ctx, write.record ?? {})),
      invoiceRecord,
    ),
};

/** Customers and suppliers are both Xero contacts, named by the record's own name field. */
function contactWrites(
  dataType: 'customers' | 'suppliers',
  schema: WriteModel['schema'],
  nameField: 'customerName' | 'supplierName',
  mapped: typeof customerRecord,
): WriteModel {
  return {
    dataType,
    operations: ['Create', 'Update'],
    schema,
    references: [],
    submit: (ctx, write) =>
      send(
        ctx,
        write,
        { resource: 'Contacts', idField: 'ContactID' },
        xeroContact(write.record ?? {}, write.recordId, write.record?.[nameField]),
        mapped,
      ),
  };
}

const customers = contactWrites('customers', writeSchemaOf(CustomerSchema), 'customerName', customerRecord);
const suppliers = contactWrites('suppliers', writeSchemaOf(SupplierSchema), 'supplierName', supplierRecord);

const payments: WriteModel = {
  dataType: 'payments',
  operations: ['Create'],
  schema: writeSchemaOf(PaymentSchema),
  references: [{ path: ['accountRef', 'id'], dataType: 'chartOfAccounts' }],
  submit: (ctx, write) => send(ctx, write, { resource: 'Payments', idField: 'PaymentID' }, xeroPayment(write.record ?? {}), paymentRecord),
};

export const xeroWrites: ReadonlyMap<DataType, WriteModel> = new Map(
  [invoices, customers, suppliers, payments].map((m) => [m.dataType, m]),
);
