import type { PlatformWrite, ReadContext, WriteModel, WriteOperation } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import type { DataType } from '../../codat-model/data-types.js';
import { writeSchemaOf } from '../../codat-model/write-schema.js';
import { CustomerSchema, InvoiceSchema } from '../../codat-model/accounting/sales.js';
import { BillSchema } from '../../codat-model/accounting/purchases.js';
import { QboFault, qboCall, realmOf, type IntuitResponse, type QboEntity } from './qbo-api.js';
import { billRecord, customerRecord, invoiceRecord } from './qbo-records.js';

/*
 * Write-back to QuickBooks Online: invoices, customers and bills, created and updated. Each write carries its push
 * operation's id as Intuit's `requestid`, so a write sent again after a lost answer is made once. An update reads
 * the entity first for its SyncToken (QuickBooks' optimistic lock) and sends a sparse update: the fields Codat's
 * shape does not carry stay as they are. QuickBooks' answer is the entity as it now holds it, mapped back.
 */

type Data = Record<string, unknown>;

const day = (value: unknown): string | undefined => (typeof value === 'string' && value.length >= 10 ? value.slice(0, 10) : undefined);
const obj = (value: unknown): Data => (value && typeof value === 'object' ? (value as Data) : {});
const list = (value: unknown): Data[] => (Array.isArray(value) ? (value as Data[]) : []);
/** A Codat `{ id }` reference as QuickBooks' `{ value }`, or undefined without an id. */
const qboRef = (value: unknown): { value: string } | undefined => {
  const id = obj(value).id;
  return typeof id === 'string' && id !== '' ? { value: id } : undefined;
};
const round = (n: number) => Math.round(n * 100) / 100;

function qboInvoice(record: Data): QboEntity {
  return {
    CustomerRef: qboRef(record.customerRef),
    TxnDate: day(record.issueDate),
    DueDate: day(record.dueDate),
    DocNumber: record.invoiceNumber ?? undefined,
    CurrencyRef: typeof record.currency === 'string' ? { value: record.currency } : undefined,
    CustomerMemo: typeof record.note === 'string' ? { value: record.note } : undefined,
    Line: list(record.lineItems).map((l) => ({
      DetailType: 'SalesItemLineDetail',
      Description: l.description ?? undefined,
      Amount: round(Number(l.quantity ?? 1) * Number(l.unitAmount ?? 0)),
      SalesItemLineDetail: {
        ItemRef: qboRef(l.itemRef),
        Qty: l.quantity,
        UnitPrice: l.unitAmount,
        TaxCodeRef: qboRef(l.taxRateRef),
      },
    })),
  };
}

function qboBill(record: Data): QboEntity {
  return {
    VendorRef: qboRef(record.supplierRef),
    TxnDate: day(record.issueDate),
    DueDate: day(record.dueDate),
    DocNumber: record.reference ?? undefined,
    CurrencyRef: typeof record.currency === 'string' ? { value: record.currency } : undefined,
    PrivateNote: record.note ?? undefined,
    Line: list(record.lineItems).map((l) => {
      const amount = round(Number(l.quantity ?? 1) * Number(l.unitAmount ?? 0));
      // A line naming an item buys the item; any other posts the amount to its account.
      return qboRef(l.itemRef)
        ? {
            DetailType: 'ItemBasedExpenseLineDetail',
            Description: l.description ?? undefined,
            Amount: amount,
            ItemBasedExpenseLineDetail: {
              ItemRef: qboRef(l.itemRef),
              Qty: l.quantity,
              UnitPrice: l.unitAmount,
              TaxCodeRef: qboRef(l.taxRateRef),
            },
          }
        : {
            DetailType: 'AccountBasedExpenseLineDetail',
            Description: l.description ?? undefined,
            Amount: amount,
            AccountBasedExpenseLineDetail: { AccountRef: qboRef(l.accountRef), TaxCodeRef: qboRef(l.taxRateRef) },
          };
    }),
  };
}

function qboAddress(address: Data | undefined): QboEntity | undefined {
  if (!address) return undefined;
  return {
    Line1: address.line1 ?? undefined,
    Line2: address.line2 ?? undefined,
    City: address.city ?? undefined,
    CountrySubDivisionCode: address.region ?? undefined,
    PostalCode: address.postalCode ?? undefined,
    Country: address.country ?? undefined,
  };
}

/**
 * A customer as QuickBooks takes it. Codat's customer has one name (`customerName`), QuickBooks' DisplayName: a new
 * customer takes it as its CompanyName too, but an update leaves CompanyName as it is (it may well differ from the
 * display name, and Codat's shape does not carry it). `Active` is sent only when the status says Active or Archived:
 * an update saying Unknown leaves an archived customer archived.
 */
function qboCustomer(record: Data, operation: WriteOperation): QboEntity {
  const addresses = list(record.addresses);
  const [given, ...family] = String(record.contactName ?? '')
    .split(' ')
    .filter(Boolean);
  return {
    DisplayName: record.customerName,
    CompanyName: operation === 'Create' ? record.customerName : undefined,
    GivenName: given,
    FamilyName: family.length > 0 ? family.join(' ') : undefined,
    PrimaryEmailAddr: typeof record.emailAddress === 'string' ? { Address: record.emailAddress } : undefined,
    PrimaryPhone: typeof record.phone === 'string' ? { FreeFormNumber: record.phone } : undefined,
    CurrencyRef: typeof record.defaultCurrency === 'string' ? { value: record.defaultCurrency } : undefined,
    BillAddr: qboAddress(addresses.find((a) => a.type !== 'Delivery')),
    ShipAddr: qboAddress(addresses.find((a) => a.type === 'Delivery')),
    Active: record.status === 'Archived' ? false : record.status === 'Active' ? true : undefined,
  };
}

/** JSON without the undefined fields (QuickBooks reads an explicit null as "clear it"). */
const clean = (entity: QboEntity): QboEntity => JSON.parse(JSON.stringify(entity)) as QboEntity;

/** QuickBooks' optimistic lock failed: someone changed the entity between our read of its SyncToken and the write. */
const STALE_OBJECT = '5010';

/** Creates or updates one entity (`invoice`, `customer`, `bill`) and maps QuickBooks' answer back. */
async function send(
  ctx: ReadContext,
  write: PlatformWrite,
  entity: string,
  body: QboEntity,
  map: (x: QboEntity, id: string) => Data,
): Promise<{ recordId: string; record: Data | null }> {
  const realm = realmOf(ctx);
  const resource = entity.toLowerCase();
  let payload = clean(body);
  try {
    if (write.operation === 'Update') {
      if (!write.recordId) throw new ConnectorError('invalid', `an update of a QuickBooks ${entity} names the record it changes`);
      const current = await qboCall<IntuitResponse>(realm, 'GET', `${resource}/${encodeURIComponent(write.recordId)}`);
      const syncToken = (current[entity] as QboEntity | undefined)?.SyncToken;
      payload = { ...payload, Id: write.recordId, SyncToken: syncToken, sparse: true };
    }
    const answer = await qboCall<IntuitResponse>(realm, 'POST', resource, { requestid: write.key }, payload);
    const saved = answer[entity] as QboEntity | undefined;
    if (!saved?.Id) throw new ConnectorError('unavailable', `QuickBooks Online accepted the ${entity} without answering it`);
    const id = String(saved.Id);
    return { recordId: id, record: { id, ...map(saved, id) } };
  } catch (err) {
    if (!(err instanceof QboFault)) throw err;
    if (err.codes.includes(STALE_OBJECT))
      throw new ConnectorError(
        'invalid',
        `the ${entity} changed in QuickBooks Online since it was read; read it again (sync ${entity.toLowerCase()}s) and retry the update`,
      );
    if (err.status === 404 || err.codes.includes('610'))
      throw new ConnectorError('invalid', `QuickBooks Online has no such ${entity} (${write.recordId ?? 'new'})`);
    throw new ConnectorError('invalid', err.message);
  }
}

/** QuickBooks refuses an invoice line without an item: Codat's shape has it optional, so it is checked first. */
function linesNameItems(record: Data): { itemId: string; message: string }[] {
  return list(record.lineItems).flatMap((l, i) =>
    qboRef(l.itemRef)
      ? []
      : [{ itemId: `lineItems[${i}].itemRef.id`, message: 'QuickBooks Online invoice lines name an item (itemRef.id)' }],
  );
}

const invoices: WriteModel = {
  dataType: 'invoices',
  operations: ['Create', 'Update'],
  schema: writeSchemaOf(InvoiceSchema),
  references: [
    { path: ['customerRef', 'id'], dataType: 'customers' },
    { path: ['lineItems', '*', 'itemRef', 'id'], dataType: 'items' },
  ],
  check: linesNameItems,
  submit: (ctx, write) => send(ctx, write, 'Invoice', qboInvoice(write.record ?? {}), invoiceRecord),
};

const customers: WriteModel = {
  dataType: 'customers',
  operations: ['Create', 'Update'],
  schema: writeSchemaOf(CustomerSchema),
  references: [],
  submit: (ctx, write) => send(ctx, write, 'Customer', qboCustomer(write.record ?? {}, write.operation), customerRecord),
};

const bills: WriteModel = {
  dataType: 'bills',
  operations: ['Create', 'Update'],
  schema: writeSchemaOf(BillSchema),
  references: [
    { path: ['supplierRef', 'id'], dataType: 'suppliers' },
    { path: ['lineItems', '*', 'accountRef', 'id'], dataType: 'chartOfAccounts' },
    { path: ['lineItems', '*', 'itemRef', 'id'], dataType: 'items' },
  ],
  submit: (ctx, write) => send(ctx, write, 'Bill', qboBill(write.record ?? {}), billRecord),
};

export const qboWrites: ReadonlyMap<DataType, WriteModel> = new Map([invoices, customers, bills].map((m) => [m.dataType, m]));
