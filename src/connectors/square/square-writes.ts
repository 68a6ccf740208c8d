import type { PlatformWrite, ReadContext, WriteModel } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import type { DataType } from '../../codat-model/data-types.js';
import { platformRequest } from '../platform-http.js';
import { writeSchemaOf } from '../../codat-model/write-schema.js';
import { CommerceCustomer } from '../../codat-model/commerce/catalog-schemas.js';
import { filledAddresses, textOf as text } from '../customer-addresses.js';
import { merchantEndpoint, squareErrorText, type SquareObject } from './square-api.js';
import { customerRecord } from './square-records.js';

/*
 * Write-back to Square: customers, created (`POST /v2/customers`) and replaced (`PUT /v2/customers/{id}`)
 * (docs/connectors/square.md, "Write-back"). Codat's commerce API has no push endpoints; these use the accounting
 * types' (`…/push/commerce-customers`), Ledgerport's own extension (docs/decisions.md, "Writes"). A new customer
 * carries its push operation's id as Square's `idempotency_key`, so it is sent again after a lost answer and made
 * once; a replacement sends every field, so sending it twice changes nothing more.
 */

type Data = Record<string, unknown>;
type Problem = { itemId: string; message: string };

/** Codat's address fields and Square's names for them. */
const ADDRESS_FIELDS = {
  line1: 'address_line_1',
  line2: 'address_line_2',
  city: 'locality',
  region: 'administrative_district_level_1',
  postalCode: 'postal_code',
  country: 'country',
} as const;

/** What Square cannot keep of a customer, said before the write is accepted. */
function checkCustomer(record: Data): Problem[] {
  const problems: Problem[] = [];
  const addresses = filledAddresses(record);
  if (addresses.length > 1)
    problems.push({ itemId: 'addresses', message: 'Square keeps one address per customer; send at most one in addresses' });
  for (const [i, a] of addresses.entries()) {
    if (a.country !== undefined && a.country !== null && !/^[A-Z]{2}$/.test(String(a.country)))
      problems.push({
        itemId: `addresses[${i}].country`,
        message: `addresses[${i}].country must be a two-letter ISO 3166 code (e.g. US or GB) for Square`,
      });
  }
  if (record.defaultCurrency !== undefined && record.defaultCurrency !== null)
    problems.push({ itemId: 'defaultCurrency', message: 'defaultCurrency cannot be written to Square: a Square customer has no currency' });
  const named = [record.customerName, record.emailAddress, record.phone].some((v) => text(v) !== undefined);
  if (!named)
    problems.push({ itemId: 'customerName', message: 'Square needs a customerName, an emailAddress or a phone to keep a customer' });
  return problems;
}

/**
 * Codat's customer as Square's fields. `customerName` is split into the given name (its first word) and the family
 * name (the rest), which Square joins back as the name read; a customer Square knows by its company name alone
 * (`current`, read before a replacement) keeps the name there, as it was read. A replacement clears (null) what
 * the record leaves out, within the address too (Square merges an address's fields, and reads `address_line_3`
 * into `line2`); Square's `nickname`, and a company name beside a person's name, which Codat's customer has no field
 * for, are left as they are.
 */
function customerFields(record: Data, replace: boolean, current?: SquareObject): Data {
  const name = text(record.customerName);
  const byCompany =
    current !== undefined && !text(current.given_name) && !text(current.family_name) && text(current.company_name) !== undefined;
  const [given, ...family] = byCompany ? [] : (name ?? '').split(/\s+/).filter(Boolean);
  const a = filledAddresses(record)[0];
  let address: Data | undefined;
  if (a) {
    address = Object.fromEntries(
      Object.entries(ADDRESS_FIELDS)
        .map(([field, squareName]) => [squareName, text(a[field]) ?? (replace ? null : undefined)])
        .filter(([, v]) => v !== undefined),
    );
    if (replace) address = { ...address, address_line_3: null };
  }
  const fields: Data = {
    given_name: given,
    family_name: family.length > 0 ? family.join(' ') : undefined,
    ...(byCompany ? { company_name: name } : {}),
    email_address: text(record.emailAddress),
    phone_number: text(record.phone),
    note: text(record.note),
    address,
  };
  return Object.fromEntries(
    Object.entries(fields)
      .map(([k, v]) => [k, v === undefined && replace ? null : v])
      .filter(([, v]) => v !== undefined),
  );
}

/** Square's answer to a write: the customer on 200; otherwise Square's own words, as a refusal of this write alone. */
function customerOf(status: number, body: string, what: string): SquareObject {
  let parsed: SquareObject;
  try {
    parsed = JSON.parse(body) as SquareObject;
  } catch {
    parsed = {};
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new ConnectorError('unavailable', `Square answered the ${what} with something other than a JSON object (HTTP ${status})`);
  if (status === 200 && typeof parsed.customer?.id === 'string') return parsed.customer as SquareObject;
  const words = squareErrorText(parsed);
  // A grant without CUSTOMERS_WRITE (a connection linked before write-back) refuses writes, not the connection.
  if (status === 403)
    throw new ConnectorError(
      'invalid',
      `Square refused the ${what}: the connection was not granted CUSTOMERS_WRITE; link it again to grant it (${words})`,
    );
  if (status === 400 || status === 404) throw new ConnectorError('invalid', `Square refused the ${what}: ${words}`);
  throw new ConnectorError('unavailable', `Square answered HTTP ${status} to the ${what}${words ? `: ${words}` : ''}`);
}

async function submitCustomer(ctx: ReadContext, write: PlatformWrite): Promise<{ recordId: string; record: Data | null }> {
  // A 403 is Square's answer to a missing scope: returned, so it fails this write and leaves the connection Linked.
  const endpoint = { ...merchantEndpoint(ctx), forbiddenIsUnauthorized: false };
  const update = write.operation === 'Update';
  const record = write.record ?? {};
  const path = `customers/${encodeURIComponent(String(write.recordId))}`;
  // A replacement reads the customer first, to keep a company's name where Square keeps it. No `version` is sent:
  // a replacement sent again after a lost answer must not meet a version it moved on itself.
  let current: SquareObject | undefined;
  if (update) {
    const read = await platformRequest(endpoint, 'GET', path);
    // Reading needs CUSTOMERS_READ, not the CUSTOMERS_WRITE a 403 to the write itself would lack.
    if (read.status === 403)
      throw new ConnectorError(
        'invalid',
        `Square refused to read customer ${write.recordId} before replacing it (HTTP 403); link the connection again`,
      );
    current = customerOf(read.status, read.body, `customer ${write.recordId}`);
  }
  const response = update
    ? await platformRequest(endpoint, 'PUT', path, customerFields(record, true, current), { retry: true })
    : await platformRequest(
        endpoint,
        'POST',
        'customers',
        { idempotency_key: write.key, ...customerFields(record, false) },
        { retry: true },
      );
  const customer = customerOf(response.status, response.body, update ? `update of customer ${write.recordId}` : 'new customer');
  return { recordId: String(customer.id), record: { id: String(customer.id), ...customerRecord(customer) } };
}

const customers: WriteModel = {
  dataType: 'commerce-customers',
  operations: ['Create', 'Update'],
  schema: writeSchemaOf(CommerceCustomer),
  references: [],
  check: checkCustomer,
  submit: submitCustomer,
};

export const squareWrites: ReadonlyMap<DataType, WriteModel> = new Map([[customers.dataType, customers]]);
