import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import {
  authorize,
  companyWithConnection,
  fetchOnFirstLinkOnly,
  linkedSandbox,
  waitForPush,
  waitForSyncs,
  type LinkedCompany,
} from '../helpers/sandbox.js';
import { codatOasOrSkip, oasErrors, oasValidator } from '../helpers/oas.js';

/** Asserts a body has the shape of a schema in Codat's Platform OpenAPI document (where that document is here). */
function expectCodatShape(schemaName: string, body: unknown): void {
  if (!codatOasOrSkip()) return;
  const validate = oasValidator('Codat-Platform.json', schemaName);
  expect(validate(body), oasErrors(validate)).toBe(true);
}

const settled = waitForPush;

const pushPath = (linked: LinkedCompany, dataType: string, id?: string) =>
  `/companies/${linked.companyId}/connections/${linked.connectionId}/push/${dataType}${id ? `/${id}` : ''}`;

describe('writes (push operations) to the accounting Sandbox', () => {
  let server: TestServer;
  let client: TestClient;
  let linked: LinkedCompany;
  let customerId: string;

  beforeAll(async () => {
    server = await startTestServer({ push: { sandboxDelayMs: 50 } });
    client = await server.newClient();
    linked = await linkedSandbox(server, client);
    await waitForSyncs(server, client, linked.companyId);
    const customers = await http(server, 'GET', `/companies/${linked.companyId}/data/customers?pageSize=1`, { auth: client.auth });
    customerId = customers.body.results[0].id;
  }, 120_000);
  afterAll(async () => server?.close());

  const invoice = (overrides: Record<string, unknown> = {}) => ({
    invoiceNumber: 'LP-0001',
    customerRef: { id: customerId },
    issueDate: '2024-05-01',
    dueDate: '2024-05-31T00:00:00',
    currency: 'GBP',
    lineItems: [{ description: 'Consulting', unitAmount: 100, quantity: 2, subTotal: 200, taxAmount: 40, totalAmount: 240 }],
    subTotal: 200,
    totalTaxAmount: 40,
    totalAmount: 240,
    amountDue: 240,
    status: 'Submitted',
    note: null,
    ...overrides,
  });

  it('creates an invoice: 200 Pending with the record as sent, then Success, then visible after the sync it triggers', async () => {
    const body = invoice();
    const res = await http(server, 'POST', pushPath(linked, 'invoices'), { auth: client.auth, body });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      data: body,
      dataType: 'invoices',
      companyId: linked.companyId,
      dataConnectionKey: linked.connectionId,
      status: 'Pending',
      statusCode: 202,
      timeoutInMinutes: null,
    });
    expect(res.body.completedOnUtc).toBeUndefined();
    expectCodatShape('PushOperation', res.body);

    const op = await settled(server, client, linked.companyId, res.body.pushOperationKey);
    expect(op).toMatchObject({ status: 'Success', statusCode: 200, validation: { errors: [], warnings: [] } });
    expect(op.data).toBeUndefined();
    expect(op.changes).toHaveLength(1);
    expect(op.changes[0]).toMatchObject({ type: 'Created', recordRef: { dataType: 'invoices' }, attachmentId: null });
    expect(Date.parse(op.completedOnUtc)).toBeGreaterThanOrEqual(Date.parse(op.requestedOnUtc));
    const newId = op.changes[0].recordRef.id;

    await waitForSyncs(server, client, linked.companyId);
    const read = await http(server, 'GET', `/companies/${linked.companyId}/data/invoices/${newId}`, { auth: client.auth });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({
      id: newId,
      invoiceNumber: 'LP-0001',
      customerRef: { id: customerId },
      totalAmount: 240,
      status: 'Submitted',
      metadata: { isDeleted: false },
    });
    expect(read.body).not.toHaveProperty('note');
  });

  it('updates and then deletes an invoice it created', async () => {
    const created = await http(server, 'POST', pushPath(linked, 'invoices'), {
      auth: client.auth,
      body: invoice({ invoiceNumber: 'LP-0002' }),
    });
    const id = (await settled(server, client, linked.companyId, created.body.pushOperationKey)).changes[0].recordRef.id;

    const updated = await http(server, 'PUT', pushPath(linked, 'invoices', id), {
      auth: client.auth,
      body: invoice({ invoiceNumber: 'LP-0002', note: 'Revised', totalAmount: 300, amountDue: 300 }),
    });
    expect(updated.status, updated.text).toBe(200);
    const update = await settled(server, client, linked.companyId, updated.body.pushOperationKey);
    expect(update.status).toBe('Success');
    expect(update.changes[0]).toMatchObject({ type: 'Modified', recordRef: { id, dataType: 'invoices' } });
    await waitForSyncs(server, client, linked.companyId);
    const afterUpdate = await http(server, 'GET', `/companies/${linked.companyId}/data/invoices/${id}`, { auth: client.auth });
    expect(afterUpdate.body).toMatchObject({ note: 'Revised', totalAmount: 300 });

    const deleted = await http(server, 'DELETE', pushPath(linked, 'invoices', id), { auth: client.auth });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.data).toBeUndefined();
    const deletion = await settled(server, client, linked.companyId, deleted.body.pushOperationKey);
    expect(deletion.changes[0]).toMatchObject({ type: 'Deleted', recordRef: { id } });
    await waitForSyncs(server, client, linked.companyId);
    const afterDelete = await http(server, 'GET', `/companies/${linked.companyId}/data/invoices/${id}`, { auth: client.auth });
    expect(afterDelete.body.metadata).toEqual({ isDeleted: true });
  });

  it('creates and updates a customer', async () => {
    const customer = {
      customerName: 'Ledgerport Test Ltd',
      emailAddress: 'accounts@example.com',
      defaultCurrency: 'GBP',
      status: 'Active',
      addresses: [{ type: 'Billing', line1: '1 High Street', city: 'Leeds' }],
    };
    const created = await http(server, 'POST', pushPath(linked, 'customers'), { auth: client.auth, body: customer });
    expect(created.status, created.text).toBe(200);
    const op = await settled(server, client, linked.companyId, created.body.pushOperationKey);
    expect(op.status).toBe('Success');
    const id = op.changes[0].recordRef.id;
    await waitForSyncs(server, client, linked.companyId);
    const read = await http(server, 'GET', `/companies/${linked.companyId}/data/customers/${id}`, { auth: client.auth });
    expect(read.body).toMatchObject({ id, customerName: 'Ledgerport Test Ltd', status: 'Active' });

    const updated = await http(server, 'PUT', pushPath(linked, 'customers', id), {
      auth: client.auth,
      body: { ...customer, customerName: 'Ledgerport Renamed Ltd' },
    });
    expect((await settled(server, client, linked.companyId, updated.body.pushOperationKey)).status).toBe('Success');
    await waitForSyncs(server, client, linked.companyId);
    const reread = await http(server, 'GET', `/companies/${linked.companyId}/data/customers/${id}`, { auth: client.auth });
    expect(reread.body.customerName).toBe('Ledgerport Renamed Ltd');

    // A write can refer to a record that exists only because an earlier write created it.
    const forNewCustomer = await http(server, 'POST', pushPath(linked, 'invoices'), {
      auth: client.auth,
      body: invoice({ customerRef: { id } }),
    });
    expect(forNewCustomer.status, forNewCustomer.text).toBe(200);
    expect((await settled(server, client, linked.companyId, forNewCustomer.body.pushOperationKey)).status).toBe('Success');
  });

  it('answers 400 with one validation item per problem, and queues nothing', async () => {
    const before = (await http(server, 'GET', `/companies/${linked.companyId}/push?pageSize=1`, { auth: client.auth })).body.totalResults;
    const cases: Array<{ body: unknown; items: string[] }> = [
      { body: invoice({ issueDate: undefined, status: undefined }), items: ['issueDate', 'status'] },
      { body: invoice({ totalAmount: 'a lot' }), items: ['totalAmount'] },
      { body: invoice({ status: 'Settled' }), items: ['status'] },
      { body: invoice({ issueDate: 'yesterday' }), items: ['issueDate'] },
      { body: invoice({ id: 'my-own-id', modifiedDate: '2024-01-01T00:00:00Z' }), items: ['id', 'modifiedDate'] },
      { body: invoice({ customerRef: { id: 'no-such-customer' } }), items: ['customerRef.id'] },
      { body: invoice({ lineItems: [{ description: 'No amounts' }] }), items: ['lineItems.0.unitAmount', 'lineItems.0.quantity'] },
    ];
    for (const c of cases) {
      const res = await http(server, 'POST', pushPath(linked, 'invoices'), { auth: client.auth, body: JSON.parse(JSON.stringify(c.body)) });
      expectErrorBody(res, 400, { validation: true });
      expect(res.body.validation.errors.map((e: { itemId: string }) => e.itemId).sort(), res.text).toEqual([...c.items].sort());
      for (const item of res.body.validation.errors) expect(item.message).toMatch(new RegExp(item.itemId.replace(/\./g, '\\.')));
    }
    const notObject = await http(server, 'POST', pushPath(linked, 'invoices'), { auth: client.auth, body: [invoice()] });
    expectErrorBody(notObject, 400, { validation: true });
    const badTimeout = await http(server, 'POST', `${pushPath(linked, 'invoices')}?timeoutInMinutes=soon`, {
      auth: client.auth,
      body: invoice(),
    });
    expectErrorBody(badTimeout, 400, { validation: true });
    expect(badTimeout.body.validation.errors[0].itemId).toBe('timeoutInMinutes');
    const after = (await http(server, 'GET', `/companies/${linked.companyId}/push?pageSize=1`, { auth: client.auth })).body.totalResults;
    expect(after).toBe(before);
  });

  it("ends Failed, with the platform's validation, when the platform refuses the write", async () => {
    const paid = await http(
      server,
      'GET',
      `/companies/${linked.companyId}/data/invoices?query=${encodeURIComponent('status=Paid')}&pageSize=10`,
      { auth: client.auth },
    );
    // The platform has moved on since the last sync (the Sandbox's next epoch), and may have deleted a record
    // the data set still shows: such an invoice is refused as missing, and the next one is tried.
    let paidInvoice = paid.body.results[0];
    let failed: Awaited<ReturnType<typeof settled>> | undefined;
    for (const candidate of paid.body.results) {
      expect(candidate.paymentAllocations.length).toBeGreaterThan(0);
      const deletion = await http(server, 'DELETE', pushPath(linked, 'invoices', candidate.id), { auth: client.auth });
      expect(deletion.status, deletion.text).toBe(200);
      failed = await settled(server, client, linked.companyId, deletion.body.pushOperationKey);
      paidInvoice = candidate;
      if (!/has no invoices record/.test(failed.errorMessage)) break;
    }
    expect(failed).toMatchObject({ status: 'Failed', statusCode: 400, changes: null });
    expect(failed.errorMessage).toMatch(/payments allocated/);
    expect(failed.validation.errors).toEqual([expect.objectContaining({ itemId: 'paymentAllocations', validatorName: 'Sandbox' })]);
    expectCodatShape('PushOperation', failed);

    const { id, modifiedDate, sourceModifiedDate, metadata, ...fields } = paidInvoice;
    const update = await http(server, 'PUT', pushPath(linked, 'invoices', id), { auth: client.auth, body: { ...fields, note: 'Changed' } });
    const refused = await settled(server, client, linked.companyId, update.body.pushOperationKey);
    expect(refused.status).toBe('Failed');
    expect(refused.validation.errors[0].message).toMatch(/forceUpdate/);
    const forced = await http(server, 'PUT', `${pushPath(linked, 'invoices', id)}?forceUpdate=true`, {
      auth: client.auth,
      body: { ...fields, note: 'Changed' },
    });
    expect((await settled(server, client, linked.companyId, forced.body.pushOperationKey)).status).toBe('Success');

    const missing = await http(server, 'PUT', pushPath(linked, 'customers', 'no-such-customer'), {
      auth: client.auth,
      body: { customerName: 'Nobody', status: 'Active' },
    });
    const notThere = await settled(server, client, linked.companyId, missing.body.pushOperationKey);
    expect(notThere.status).toBe('Failed');
    expect(notThere.validation.errors[0]).toMatchObject({ itemId: 'id', validatorName: 'Sandbox' });
  });

  it('returns the first operation for a repeated Idempotency-Key and writes once', async () => {
    const headers = { 'idempotency-key': `key-${Date.now()}` };
    const body = invoice({ invoiceNumber: 'LP-IDEMPOTENT' });
    const first = await http(server, 'POST', pushPath(linked, 'invoices'), { auth: client.auth, body, headers });
    const second = await http(server, 'POST', pushPath(linked, 'invoices'), { auth: client.auth, body, headers });
    expect(second.status).toBe(200);
    expect(second.body.pushOperationKey).toBe(first.body.pushOperationKey);
    expect(second.body.data).toEqual(body);
    await settled(server, client, linked.companyId, first.body.pushOperationKey);
    const third = await http(server, 'POST', pushPath(linked, 'invoices'), { auth: client.auth, body, headers });
    expect(third.body).toMatchObject({ pushOperationKey: first.body.pushOperationKey, status: 'Success' });

    const query = encodeURIComponent(`pushOperationKey=${first.body.pushOperationKey}`);
    const history = await http(server, 'GET', `/companies/${linked.companyId}/push?query=${query}`, { auth: client.auth });
    expect(history.body.totalResults).toBe(1);

    const different = await http(server, 'POST', pushPath(linked, 'invoices'), {
      auth: client.auth,
      body: { ...body, totalAmount: 1 },
      headers,
    });
    expectErrorBody(different, 400, { validation: true });
    expect(different.body.error).toMatch(/^IdempotencyKeyReusedException/);
  });

  it('refuses data types and operations the platform does not write', async () => {
    const report = await http(server, 'POST', pushPath(linked, 'balanceSheet'), { auth: client.auth, body: {} });
    expectErrorBody(report, 404);
    expect(report.body.error).toBe('Datatype balanceSheet not supported by platform(s) Sandbox');
    const unknown = await http(server, 'POST', pushPath(linked, 'widgets'), { auth: client.auth, body: {} });
    expectErrorBody(unknown, 404);
    const itemUpdate = await http(server, 'PUT', pushPath(linked, 'items', 'any'), { auth: client.auth, body: {} });
    expectErrorBody(itemUpdate, 405);
    expect(itemUpdate.headers.get('allow')).toBe('');
    const customerDelete = await http(server, 'DELETE', pushPath(linked, 'customers', 'any'), { auth: client.auth });
    expectErrorBody(customerDelete, 405);
    expect(customerDelete.headers.get('allow')).toBe('PUT');
    const otherConnection = await http(
      server,
      'POST',
      `/companies/${linked.companyId}/connections/00000000-0000-4000-8000-000000000000/push/invoices`,
      { auth: client.auth, body: invoice() },
    );
    expectErrorBody(otherConnection, 404);
  });

  it('lists push history with paging, query and orderBy, and reads one operation', async () => {
    const all = await http(server, 'GET', `/companies/${linked.companyId}/push?pageSize=2`, { auth: client.auth });
    expect(all.status, all.text).toBe(200);
    expect(all.body.results).toHaveLength(2);
    expect(all.body.totalResults).toBeGreaterThan(2);
    expect(Date.parse(all.body.results[0].requestedOnUtc)).toBeGreaterThanOrEqual(Date.parse(all.body.results[1].requestedOnUtc));
    expectCodatShape('PushOperations', all.body);
    const failed = await http(
      server,
      'GET',
      `/companies/${linked.companyId}/push?query=${encodeURIComponent('status=Failed')}&orderBy=requestedOnUtc`,
      { auth: client.auth },
    );
    expect(failed.body.results.length).toBeGreaterThan(0);
    expect(failed.body.results.every((op: { status: string }) => op.status === 'Failed')).toBe(true);
    const customers = await http(server, 'GET', `/companies/${linked.companyId}/push?query=${encodeURIComponent('dataType=customers')}`, {
      auth: client.auth,
    });
    expect(customers.body.results.every((op: { dataType: string }) => op.dataType === 'customers')).toBe(true);
    const badQuery = await http(server, 'GET', `/companies/${linked.companyId}/push?query=${encodeURIComponent('colour=red')}`, {
      auth: client.auth,
    });
    expectErrorBody(badQuery, 400, { validation: true });

    const missing = await http(server, 'GET', `/companies/${linked.companyId}/push/00000000-0000-4000-8000-000000000000`, {
      auth: client.auth,
    });
    expectErrorBody(missing, 404);
  });

  it('describes the fields a write takes (PushOption)', async () => {
    const res = await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}/options/invoices`, {
      auth: client.auth,
    });
    expect(res.status, res.text).toBe(200);
    expectCodatShape('PushOption', res.body);
    expect(res.body).toMatchObject({ type: 'Object', required: true });
    for (const field of ['issueDate', 'totalAmount', 'amountDue', 'status']) expect(res.body.properties[field].required, field).toBe(true);
    expect(res.body.properties).not.toHaveProperty('id');
    const none = await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}/options/balanceSheet`, {
      auth: client.auth,
    });
    expectErrorBody(none, 404);
  });

  it('does not sync after the write when allowSyncOnPushComplete=false', async () => {
    await waitForSyncs(server, client, linked.companyId);
    const statusBefore = (await http(server, 'GET', `/companies/${linked.companyId}/dataStatus`, { auth: client.auth })).body.customers;
    const res = await http(server, 'POST', `${pushPath(linked, 'customers')}?allowSyncOnPushComplete=false`, {
      auth: client.auth,
      body: { customerName: 'Quiet Ltd', status: 'Active' },
    });
    expect((await settled(server, client, linked.companyId, res.body.pushOperationKey)).status).toBe('Success');
    const statusAfter = (await http(server, 'GET', `/companies/${linked.companyId}/dataStatus`, { auth: client.auth })).body.customers;
    expect(statusAfter.latestSyncId).toBe(statusBefore.latestSyncId);
  });

  it('refuses writes to a connection that is not Linked, before anything is queued', async () => {
    const other = await linkedSandbox(server, client);
    await waitForSyncs(server, client, other.companyId);
    const unlink = await http(server, 'PATCH', `/companies/${other.companyId}/connections/${other.connectionId}`, {
      auth: client.auth,
      body: { status: 'Unlinked' },
    });
    expect(unlink.status, unlink.text).toBe(200);
    const res = await http(server, 'POST', pushPath(other, 'customers'), {
      auth: client.auth,
      body: { customerName: 'Nobody Ltd', status: 'Active' },
    });
    expectErrorBody(res, 400);
    expect(res.body.error).toMatch(/^ConnectionNotLinkedException: Connection .* is Unlinked/);
    const history = await http(server, 'GET', `/companies/${other.companyId}/push`, { auth: client.auth });
    expect(history.body.totalResults).toBe(0);
  });
});

describe('write timeouts', () => {
  let server: TestServer;
  let client: TestClient;

  // The platform takes 5 s, the operation allows one (shortened) minute of 200 ms: it times out first.
  beforeAll(async () => {
    server = await startTestServer({ push: { sandboxDelayMs: 5000, minuteMs: 200 } });
    client = await server.newClient();
  });
  afterAll(async () => server?.close());

  it('ends TimedOut when the platform has not completed within timeoutInMinutes', async () => {
    // No first-link syncs: the write's job must not queue behind them (on a loaded machine they take seconds).
    const linked = await companyWithConnection(server, client);
    await fetchOnFirstLinkOnly(server, client, linked.companyId, []);
    await authorize(server, client, linked);
    const res = await http(server, 'POST', `${pushPath(linked, 'customers')}?timeoutInMinutes=1`, {
      auth: client.auth,
      body: { customerName: 'Slow Ltd', status: 'Active' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'Pending', timeoutInMinutes: 1, timeoutInSeconds: 60 });
    const op = await settled(server, client, linked.companyId, res.body.pushOperationKey, 4000);
    expect(op).toMatchObject({ status: 'TimedOut', statusCode: 504, changes: null });
    expect(op.errorMessage).toMatch(/within 1 minute/);
    const elapsed = Date.parse(op.completedOnUtc) - Date.parse(op.requestedOnUtc);
    expect(elapsed).toBeGreaterThanOrEqual(200);
  });
});
