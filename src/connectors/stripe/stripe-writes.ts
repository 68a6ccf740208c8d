import type { PlatformWrite, ReadContext, WriteModel, WriteOperation } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import type { DataType } from '../../codat-model/data-types.js';
import { platformRequest, type PlatformEndpoint } from '../platform-http.js';
import { writeSchemaOf } from '../../codat-model/write-schema.js';
import { CommerceCustomer } from '../../codat-model/commerce/catalog-schemas.js';
import { filledAddresses } from '../customer-addresses.js';
import { readEndpoint, stripeErrorText, type StripeObject } from './stripe-api.js';
import { customerRecord } from './stripe-records.js';

/*
 * Write-back to Stripe: customers, created, replaced and deleted through `POST /v1/customers`,
 * `POST /v1/customers/{id}` and `DELETE /v1/customers/{id}` (docs/connectors/stripe.md, "Write-back"). Codat's
 * commerce API has no push endpoints; these use the accounting types' (`…/push/commerce-customers`), which is
 * Ledgerport's own extension (docs/decisions.md). Each write carries its push operation's id as Stripe's
 * `Idempotency-Key`, so it is sent again after a lost answer and made once.
 */

type Data = Record<string, unknown>;

const CURRENCY_SET_BY_STRIPE =
  "defaultCurrency cannot be written to Stripe: Stripe sets a customer's currency from its first charge or subscription";

/**
 * A replacement's `defaultCurrency` must be the customer's own at Stripe (what a read gave it): anything else would be
 * a change Stripe cannot make.
 */
async function checkCurrency(endpoint: PlatformEndpoint, id: string, currency: unknown): Promise<void> {
  if (currency === undefined || currency === null) return;
  const read = await platformRequest(endpoint, 'GET', `customers/${encodeURIComponent(id)}`);
  const customer = answerOf(read.status, read.body, `customer ${id}`);
  if (customer.deleted === true) throw new ConnectorError('invalid', `Stripe refused the update of customer ${id}: it was deleted`);
  const current = customer.currency;
  if (typeof current !== 'string' || current.toUpperCase() !== String(currency).toUpperCase())
    throw new ConnectorError(
      'invalid',
      `${CURRENCY_SET_BY_STRIPE} (the customer's is ${typeof current === 'string' ? current.toUpperCase() : 'not set yet'})`,
    );
}

/** Stripe's longest values for the fields written (its OpenAPI document's `maxLength`). */
const MAX_LENGTH = { customerName: 256, emailAddress: 512, phone: 20 } as const;

/** Codat's address fields and Stripe's names for them. */
const ADDRESS_FIELDS = {
  line1: 'line1',
  line2: 'line2',
  city: 'city',
  region: 'state',
  postalCode: 'postal_code',
  country: 'country',
} as const;

/** A customer's address (billing) and its shipping address (Codat's `Delivery`); Stripe keeps one of each. */
function splitAddresses(record: Data): { billing?: Data; delivery?: Data } {
  const addresses = filledAddresses(record);
  return { billing: addresses.find((a) => a.type !== 'Delivery'), delivery: addresses.find((a) => a.type === 'Delivery') };
}

/** What Stripe cannot keep of a customer, said before the write is accepted. */
function checkCustomer(record: Data, operation: WriteOperation): { itemId: string; message: string }[] {
  const problems: { itemId: string; message: string }[] = [];
  for (const [field, max] of Object.entries(MAX_LENGTH)) {
    const value = record[field];
    if (typeof value === 'string' && value.length > max)
      problems.push({ itemId: field, message: `${field} is longer than the ${max} characters Stripe keeps` });
  }
  // A replacement may carry the currency it was read with (read, change, write back); submit compares it with Stripe's.
  if (operation === 'Create' && record.defaultCurrency !== undefined && record.defaultCurrency !== null)
    problems.push({ itemId: 'defaultCurrency', message: CURRENCY_SET_BY_STRIPE });
  const addresses = filledAddresses(record);
  if (addresses.filter((a) => a.type === 'Delivery').length > 1 || addresses.filter((a) => a.type !== 'Delivery').length > 1)
    problems.push({
      itemId: 'addresses',
      message: 'Stripe keeps one billing address and one shipping address (type Delivery) per customer; send at most one of each',
    });
  const { delivery } = splitAddresses(record);
  if (delivery && !(typeof record.customerName === 'string' && record.customerName.trim() !== ''))
    problems.push({ itemId: 'customerName', message: 'a shipping address (type Delivery) needs the customerName Stripe ships to' });
  return problems;
}

/**
 * Codat's customer as Stripe's form. A create sends what the record has; an update replaces the customer, so what
 * the record leaves out is unset (Stripe unsets a field sent empty), an address's fields included: whether Stripe
 * merges an address's fields or replaces the address, none of the old one is left.
 */
function customerForm(record: Data, replace: boolean): URLSearchParams {
  const form = new URLSearchParams();
  const text = (name: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') form.set(name, value);
    else if (replace) form.set(name, '');
  };
  text('name', record.customerName);
  text('email', record.emailAddress);
  text('phone', record.phone);
  text('description', record.note);
  const { billing, delivery } = splitAddresses(record);
  const address = (prefix: string, a: Data) => {
    for (const [field, name] of Object.entries(ADDRESS_FIELDS)) {
      const value = a[field];
      if (typeof value === 'string' && value !== '') form.set(`${prefix}[${name}]`, value);
      else if (replace) form.set(`${prefix}[${name}]`, '');
    }
  };
  if (billing) address('address', billing);
  else if (replace) form.set('address', '');
  if (delivery) {
    form.set('shipping[name]', String(record.customerName));
    address('shipping[address]', delivery);
  } else if (replace) form.set('shipping', '');
  return form;
}

/** Stripe's answer to a write: the object on 200; otherwise its own words, as a refusal of this write alone. */
function answerOf(status: number, body: string, what: string): StripeObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new ConnectorError('unavailable', `Stripe answered the ${what} with something other than a JSON object (HTTP ${status})`);
  if (status === 200) return parsed as StripeObject;
  const words = stripeErrorText(parsed);
  // A key that may not write (a read-only restricted key, or a Connect account linked read-only) is a refusal of
  // writes, not of the connection: reads go on.
  if (status === 403) throw new ConnectorError('invalid', `Stripe refused the ${what}: the API key may not write customers. ${words}`);
  if (status === 400 || status === 402 || status === 404) throw new ConnectorError('invalid', `Stripe refused the ${what}: ${words}`);
  throw new ConnectorError('unavailable', `Stripe answered HTTP ${status} to the ${what}${words ? `: ${words}` : ''}`);
}

async function submitCustomer(ctx: ReadContext, write: PlatformWrite): Promise<{ recordId: string; record: Data | null }> {
  const endpoint = readEndpoint(ctx);
  const headers = { 'idempotency-key': write.key };
  if (write.operation === 'Delete') {
    const id = String(write.recordId);
    await deleteCustomer(endpoint, id);
    return { recordId: id, record: null };
  }
  const update = write.operation === 'Update';
  if (update) await checkCurrency(endpoint, String(write.recordId), write.record?.defaultCurrency);
  const path = update ? `customers/${encodeURIComponent(String(write.recordId))}` : 'customers';
  const form = customerForm(write.record ?? {}, update);
  const response = await platformRequest(endpoint, 'POST', path, undefined, { form, headers, retry: true });
  const customer = answerOf(response.status, response.body, update ? `update of customer ${write.recordId}` : 'new customer');
  if (typeof customer.id !== 'string') throw new ConnectorError('unavailable', 'Stripe accepted the customer without answering its id');
  return { recordId: customer.id, record: { id: customer.id, ...customerRecord(customer) } };
}

/**
 * `DELETE /v1/customers/{id}`. Stripe takes no idempotency key on a DELETE, so a deletion sent again after a lost
 * answer meets 404: Stripe still answers a deleted customer's id (`{deleted: true}`), which tells a deletion made
 * (by the lost request, or earlier) from a customer that never was.
 */
async function deleteCustomer(endpoint: PlatformEndpoint, id: string): Promise<void> {
  const path = `customers/${encodeURIComponent(id)}`;
  const response = await platformRequest(endpoint, 'DELETE', path, undefined, { retry: true });
  if (response.status === 404) {
    const current = await platformRequest(endpoint, 'GET', path);
    if (current.status === 200 && answerOf(current.status, current.body, `customer ${id}`).deleted === true) return;
  }
  answerOf(response.status, response.body, `deletion of customer ${id}`);
}

const customers: WriteModel = {
  dataType: 'commerce-customers',
  operations: ['Create', 'Update', 'Delete'],
  schema: writeSchemaOf(CommerceCustomer),
  references: [],
  check: checkCustomer,
  submit: submitCustomer,
};

export const stripeWrites: ReadonlyMap<DataType, WriteModel> = new Map([[customers.dataType, customers]]);
