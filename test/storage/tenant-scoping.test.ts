import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { companyWithConnection, linkedSandbox } from '../helpers/sandbox.js';
import { statementConnection, statementSample, uploadFiles } from '../helpers/uploads.js';
import { uploadHighWater, uploadedSince, uploadsReader } from '../../src/platform-data/uploads.store.js';
import {
  deletePlatformWrites,
  loadWritten,
  presentWritten,
  saveWritten,
  writtenSince,
  writtenState,
} from '../../src/platform-data/platform-writes.store.js';
import { createSyncsStore } from '../../src/syncs/syncs.store.js';

/**
 * The tenant rule at the store: functions that take a client id find nothing of another client's, even given the
 * ids of its rows (docs/architecture.md, "Where SQL lives").
 */

let server: TestServer;
let owner: TestClient;
let other: TestClient;
beforeAll(async () => {
  server = await startTestServer();
  owner = await server.newClient({ name: 'Owner' });
  other = await server.newClient({ name: 'Other' });
});
afterAll(() => server?.close());

describe('stores keep to the client they are given', () => {
  it("reads no upload of another client's connection", async () => {
    const target = await statementConnection(server, owner);
    const file = { name: 'sepa.sta', bytes: statementSample('mt940/wolph-betterplace-sepa_mt9401.sta') };
    expect((await uploadFiles(server, owner.auth, target.companyId, target.connectionId, [file])).status).toBe(200);
    const { db } = server.store;

    const highWater = await uploadHighWater(db, owner.clientId, target.connectionId);
    expect(highWater).toBeGreaterThan(0);
    expect(await uploadHighWater(db, other.clientId, target.connectionId)).toBe(0);
    expect(await uploadedSince(db, owner.clientId, target.connectionId, 0)).toBe(true);
    expect(await uploadedSince(db, other.clientId, target.connectionId, 0)).toBe(false);
    const listed = async (clientId: string) => {
      const items = [];
      for await (const item of uploadsReader(db, clientId, target.connectionId, highWater).list()) items.push(item.id);
      return items;
    };
    expect(await listed(owner.clientId)).toHaveLength(1);
    expect(await listed(other.clientId)).toEqual([]);
  });

  it("neither reads, writes nor deletes what the Sandbox holds for another client's connection", async () => {
    const target = await companyWithConnection(server, owner);
    const { db } = server.store;
    const write = (clientId: string, recordId: string) =>
      saveWritten(db, clientId, {
        companyId: target.companyId,
        connectionId: target.connectionId,
        dataType: 'customers',
        records: [{ recordId, record: { id: recordId, customerName: 'Written' } }],
        at: '2026-01-01T00:00:00.000Z',
      });
    await write(owner.clientId, 'mine');
    await write(other.clientId, 'theirs');

    expect(await writtenState(db, owner.clientId, target.connectionId, 'customers', 'mine')).toBe('present');
    expect(await writtenState(db, owner.clientId, target.connectionId, 'customers', 'theirs')).toBeUndefined();
    expect(await writtenState(db, other.clientId, target.connectionId, 'customers', 'mine')).toBeUndefined();
    expect(await presentWritten(db, owner.clientId, target.connectionId, 'customers', ['mine', 'theirs', 'none'])).toEqual(
      new Set(['mine']),
    );
    expect(await presentWritten(db, other.clientId, target.connectionId, 'customers', ['mine', 'theirs'])).toEqual(new Set());
    expect((await loadWritten(db, owner.clientId, target.connectionId, 'customers')).written.map((w) => w.id)).toEqual(['mine']);
    expect((await loadWritten(db, other.clientId, target.connectionId, 'customers')).written).toEqual([]);
    expect(await writtenSince(db, owner.clientId, target.connectionId, 'customers', 0)).toBe(true);
    expect(await writtenSince(db, other.clientId, target.connectionId, 'customers', 0)).toBe(false);

    await deletePlatformWrites(db, other.clientId, target.connectionId);
    expect(await writtenState(db, owner.clientId, target.connectionId, 'customers', 'mine')).toBe('present');
    await deletePlatformWrites(db, owner.clientId, target.connectionId);
    expect(await writtenState(db, owner.clientId, target.connectionId, 'customers', 'mine')).toBeUndefined();
  });

  it("reads no pull operation of another client's by its id", async () => {
    const target = await linkedSandbox(server, owner);
    const { db } = server.store;
    // Linking queued the first syncs.
    const op = await db
      .selectFrom('pull_operations')
      .select('id')
      .where('client_id', '=', owner.clientId)
      .where('connection_id', '=', target.connectionId)
      .executeTakeFirstOrThrow();
    const syncs = createSyncsStore(db);
    expect((await syncs.operationOf(db, owner.clientId, op.id))?.id).toBe(op.id);
    expect(await syncs.operationOf(db, other.clientId, op.id)).toBeUndefined();
  });
});
