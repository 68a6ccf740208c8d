import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Feature } from '../../src/connectors/platform-declaration.js';
import { ACCOUNTING_SANDBOX } from '../../src/connectors/sandbox/accounting/platform.js';
import { exercised } from '../helpers/capabilities.js';
import { connectionCalls } from '../helpers/connection-calls.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from '../helpers/sandbox.js';
import { startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { asWritten } from './sandbox-records.js';

/**
 * Every write the accounting Sandbox (`mqjo`) claims in `/integrations` (its declaration's Post, Put and Delete),
 * made through the API over HTTP on a linked Sandbox company of 600 invoices, and read back through the API after the
 * sync the write queues: a create is there as sent, an update shows its change, a delete is served
 * `metadata.isDeleted: true`.
 * The records written are the company's own synced ones (as written: without the read-only fields), with one
 * identifying field changed, so that what is read back can only be what this test wrote.
 */

type Row = Record<string, any>;
type Write = Exclude<Feature, 'Get'>;

/** Each (data type, write) the declaration claims: a claim added there gets its test here. */
const CLAIMS: [string, Write][] = Object.entries(ACCOUNTING_SANDBOX.dataTypes).flatMap(([dataType, { features }]) =>
  (features as readonly Feature[]).filter((f): f is Write => f !== 'Get').map((feature): [string, Write] => [dataType, feature]),
);

/** The text field each type's write changes: it tells the written record from the synced one it copies. */
const IDENTIFYING: Record<string, string> = {
  bankAccounts: 'accountName',
  bankTransactions: 'description',
  billCreditNotes: 'billCreditNoteNumber',
  billPayments: 'reference',
  bills: 'reference',
  chartOfAccounts: 'name',
  creditNotes: 'creditNoteNumber',
  customers: 'customerName',
  directCosts: 'reference',
  directIncomes: 'reference',
  invoices: 'invoiceNumber',
  items: 'name',
  journalEntries: 'description',
  journals: 'name',
  payments: 'reference',
  purchaseOrders: 'purchaseOrderNumber',
  suppliers: 'supplierName',
  transfers: 'description',
};

/** Types the writes name (REFERENCE_TARGETS in src/connectors/sandbox/accounting/writes.ts) besides those written. */
const NAMED = ['paymentMethods', 'salesOrders', 'taxRates', 'trackingCategories'];

// The Sandbox's bookkeeping rules (src/connectors/sandbox/accounting/sandbox-submit.ts), to pick records it lets change.
const SETTLED = new Set(['Paid', 'Void']);
const settled = (r: Row) => SETTLED.has(r.status);
/** Payments allocated to a document are other records; a direct cost's or income's allocation is its own payment. */
const paidByOthers = (dataType: string, r: Row) =>
  !['directCosts', 'directIncomes'].includes(dataType) && Array.isArray(r.paymentAllocations) && r.paymentAllocations.length > 0;
/** Orders go with a document the Sandbox deletes at a later sync, so a copy naming them could name records gone. */
const namesOrders = (r: Row) => [r.purchaseOrderRefs, r.salesOrderRefs].some((refs) => Array.isArray(refs) && refs.length > 0);
/** Drafts first: a change at the Sandbox's next epoch only submits a draft, which every rule still lets change. */
const draftsFirst = (rows: Row[]) => [...rows.filter((r) => r.status === 'Draft'), ...rows.filter((r) => r.status !== 'Draft')];

describe('every write the accounting Sandbox claims, made through the API and read back', () => {
  let server: TestServer;
  let client: TestClient;
  let linked: LinkedCompany;
  const calls = connectionCalls(
    () => server,
    () => client,
    () => linked,
  );

  beforeAll(async () => {
    server = await startTestServer({ push: { sandboxDelayMs: 20 } });
    client = await server.newClient();
    linked = await companyWithConnection(server, client);
    // The types written and those their records name; not the reports, whose ledger the writes do not need.
    await fetchOnFirstLinkOnly(server, client, linked.companyId, [...new Set([...CLAIMS.map(([t]) => t), ...NAMED])]);
    // A small company, but not size small (200 invoices): there, about one connection in 30 (the company is seeded from
    // the connection id) has no bill credit note to copy or update; at 600 invoices every one has some.
    await authorize(server, client, linked, { invoices: '600' });
    await waitForSyncs(server, client, linked.companyId);
  }, 120_000);
  afterAll(async () => server?.close());

  /** A type's records as served: bank transactions under their account, every other type at its own path. */
  async function served(dataType: string, accountId?: string): Promise<Row[]> {
    if (dataType !== 'bankTransactions') return calls.allRecords(dataType);
    const base = `/companies/${linked.companyId}/connections/${linked.connectionId}/data/bankAccounts/${accountId}/bankTransactions`;
    const out: Row[] = [];
    for (let page = 1; ; page++) {
      const res = await calls.api('GET', `${base}?page=${page}&pageSize=500`);
      expect(res.status, res.text).toBe(200);
      out.push(...res.body.results);
      if (out.length >= res.body.totalResults) return out;
    }
  }

  const live = async (dataType: string) => (await served(dataType)).filter((r) => !r.metadata.isDeleted);
  const byId = (rows: Row[], id: string) => rows.find((r) => r.id === id);

  function field(dataType: string): string {
    const name = IDENTIFYING[dataType];
    if (!name) throw new Error(`${dataType} is written by the Sandbox: name its identifying field in IDENTIFYING`);
    return name;
  }

  async function create(dataType: string) {
    const marker = `LP ${dataType} Post`;
    if (dataType === 'bankTransactions') {
      // Codat's create path for bank transactions: a batch to one account (push/bankAccounts/{accountId}/bankTransactions).
      const [account] = await live('bankAccounts');
      const [base] = (await served('bankTransactions', account.id)).filter((r) => !r.metadata.isDeleted);
      const transaction = { amount: base.amount, date: base.clearedOnDate, description: marker };
      const op = await calls.push(`bankAccounts/${account.id}/bankTransactions`, { accountId: account.id, transactions: [transaction] });
      expect(op.status, JSON.stringify(op)).toBe('Success');
      expect(op.changes).toEqual([expect.objectContaining({ type: 'Created', recordRef: expect.objectContaining({ dataType }) })]);
      const id = op.changes[0].recordRef.id;
      expect(byId(await served('bankTransactions', account.id), id)).toMatchObject({
        id,
        accountId: account.id,
        amount: base.amount,
        clearedOnDate: base.clearedOnDate,
        description: marker,
        metadata: { isDeleted: false },
      });
      return;
    }
    const base = (await live(dataType)).find((r) => !namesOrders(r));
    expect(base, `the company has a ${dataType} record to copy`).toBeDefined();
    const record = { ...asWritten(base!), [field(dataType)]: marker };
    const op = await calls.push(dataType, record);
    expect(op.status, `${dataType} Post of ${JSON.stringify(record)}: ${JSON.stringify(op)}`).toBe('Success');
    expect(op.changes).toEqual([expect.objectContaining({ type: 'Created', recordRef: expect.objectContaining({ dataType }) })]);
    const id = op.changes[0].recordRef.id;
    expect(id).not.toBe(base!.id);
    const read = byId(await served(dataType), id);
    expect(read, `${dataType} ${id} is read back`).toBeDefined();
    expect(read!.metadata).toEqual({ isDeleted: false });
    expect(asWritten(read!)).toEqual(record);
  }

  /**
   * Writes `write` to a synced record `pick` chooses. The Sandbox's data moves at every sync of a type (docs/sandbox.md,
   * "Epochs"): the platform stands one epoch past the data set, and may since have deleted, paid or voided the record
   * picked. A refusal is accepted only as that: a sync of the type then reads the platform as it stood when it refused,
   * and must show the record gone, settled or paid as the refusal says; the write is then made to the next record.
   */
  async function onSynced(dataType: string, pick: (rows: Row[]) => Row[], write: (record: Row) => Promise<Row>): Promise<Row> {
    let rows = await live(dataType);
    for (let attempt = 0; attempt < 3; attempt++) {
      const [record] = pick(rows);
      expect(record, `the company has a ${dataType} record the Sandbox's rules let this write change`).toBeDefined();
      const op = await write(record);
      if (op.status === 'Success') return record;
      expect(op.status, JSON.stringify(op)).toBe('Failed');
      const synced = await calls.queue(dataType);
      expect(synced.status, JSON.stringify(synced)).toBe('Complete');
      const all = await served(dataType);
      const now = byId(all, record.id);
      const items: string[] = op.validation.errors.map((e: { itemId: string }) => e.itemId);
      const explained =
        (items.includes('id') && now?.metadata.isDeleted === true) ||
        (items.includes('status') && now !== undefined && settled(now)) ||
        (items.includes('paymentAllocations') && now !== undefined && paidByOthers(dataType, now));
      expect(
        explained,
        `the Sandbox refused ${dataType} ${record.id}, which it holds as ${JSON.stringify(now)}: ${JSON.stringify(op)}`,
      ).toBe(true);
      rows = all.filter((r) => !r.metadata.isDeleted);
    }
    throw new Error(`${dataType}: the Sandbox moved on under three records in a row`);
  }

  async function update(dataType: string) {
    const marker = `LP ${dataType} Put`;
    let sent: Row = {};
    let opOf: Row = {};
    const record = await onSynced(
      dataType,
      // Records the rules let change as they are; if the company has none (its bill credit notes are all allocated to
      // their bill, so Paid), a settled one, which the rules let change with forceUpdate.
      (rows) => {
        const open = draftsFirst(rows.filter((r) => !settled(r)));
        return open.length > 0 ? open : rows;
      },
      async (target) => {
        sent = { ...asWritten(target), [field(dataType)]: marker };
        // The helper's update goes to push/{dataType}/{recordId}: the query rides on the record id.
        const recordId = settled(target) ? `${target.id}?forceUpdate=true` : target.id;
        opOf = await calls.push(dataType, sent, { recordId });
        return opOf;
      },
    );
    expect(opOf.changes).toEqual([expect.objectContaining({ type: 'Modified', recordRef: { id: record.id, dataType } })]);
    const read = byId(await served(dataType), record.id);
    expect(read, `${dataType} ${record.id} is read back`).toBeDefined();
    expect(read![field(dataType)]).toBe(marker);
    expect(read!.metadata).toEqual({ isDeleted: false });
    expect(asWritten(read!)).toEqual(sent);
  }

  async function remove(dataType: string) {
    let opOf: Row = {};
    const record = await onSynced(
      dataType,
      (rows) => draftsFirst(rows.filter((r) => !paidByOthers(dataType, r))),
      async (target) => (opOf = await calls.pushDelete(dataType, target.id)),
    );
    expect(opOf.changes).toEqual([expect.objectContaining({ type: 'Deleted', recordRef: { id: record.id, dataType } })]);
    // The service keeps a record the platform no longer has, marked deleted.
    const read = byId(await served(dataType), record.id);
    expect(read, `${dataType} ${record.id} is still served`).toBeDefined();
    expect(read!.metadata).toEqual({ isDeleted: true });
  }

  it.each(CLAIMS)('%s: %s', async (dataType, feature) => {
    if (feature === 'Post') await create(dataType);
    else if (feature === 'Put') await update(dataType);
    else await remove(dataType);
    exercised('mqjo', dataType, feature);
  });
});
