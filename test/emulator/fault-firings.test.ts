import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { createFaults } from '../../src/emulator/faults.js';
import { createJournal } from '../../src/emulator/journal.js';
import { operationCatalogue } from '../../src/emulator/operations.js';

/**
 * Issue 33: a fault rule fires once per piece of work. A sync, write or delivery handed back (its process stopped) runs
 * again and meets the fault its first run met, without spending another of the rule's `times`.
 */

let test: TestStore;
let faults: ReturnType<typeof createFaults>;

beforeAll(async () => {
  test = await createTestStore();
  const db = test.store.db;
  const catalogue = operationCatalogue();
  const fail = (err: unknown) => {
    throw err;
  };
  const journal = createJournal({ db, catalogue, size: 100, hashKey: Buffer.alloc(32), companyOf: () => undefined, onError: fail });
  faults = createFaults({ db, catalogue, journal, onError: fail });
});
afterAll(() => test?.destroy());

describe('a rule with times: 1', () => {
  it('meets a write and its rerun with the same outcome, and no other write', async () => {
    const clientId = randomUUID();
    const target = { clientId, companyId: randomUUID(), connectionId: randomUUID(), dataType: 'invoices' };
    const rule = await faults.create(clientId, {
      match: { dataType: 'invoices' },
      action: { type: 'pushOutcome', status: 'TimedOut' },
      times: 1,
    });
    const write = { ...target, pushOperationId: randomUUID() };
    const first = await faults.push.beforeWrite(write);
    expect(first).toMatchObject({ status: 'TimedOut' });
    expect(await faults.push.beforeWrite(write)).toEqual(first);
    expect((await faults.get(clientId, rule.id)).fired).toBe(1);
    expect(await faults.push.beforeWrite({ ...target, pushOperationId: randomUUID() })).toBeUndefined();
    // Deleted, the rule fires on nothing more, the write it met included.
    await faults.delete(clientId, rule.id);
    expect(await faults.push.beforeWrite(write)).toBeUndefined();
  });

  it('draws once for a piece of work: a rerun of work the rule missed misses it again', async () => {
    const clientId = randomUUID();
    const target = { clientId, companyId: randomUUID(), connectionId: randomUUID(), dataType: 'invoices', pushOperationId: randomUUID() };
    const rule = await faults.create(clientId, {
      match: {},
      action: { type: 'pushOutcome', status: 'TimedOut' },
      probability: 0,
      seed: 7,
    });
    const draws = async () =>
      Number((await test.store.db.selectFrom('emulator_faults').select('draws').where('id', '=', rule.id).executeTakeFirstOrThrow()).draws);
    expect(await faults.push.beforeWrite(target)).toBeUndefined();
    expect(await faults.push.beforeWrite(target)).toBeUndefined();
    expect(await draws()).toBe(1);
    await faults.push.beforeWrite({ ...target, pushOperationId: randomUUID() });
    expect(await draws()).toBe(2);
  });

  it('meets a sync and its rerun alike; another client’s work never sees it', async () => {
    const clientId = randomUUID();
    const target = { clientId, companyId: randomUUID(), connectionId: randomUUID(), dataType: 'bills', pullOperationId: randomUUID() };
    await faults.create(clientId, { match: {}, action: { type: 'syncError', status: 'FetchError' }, times: 1 });
    const first = await faults.sync.beforeRead(target);
    expect(first).toMatchObject({ kind: 'FetchError' });
    expect(await faults.sync.beforeRead(target)).toEqual(first);
    expect(await faults.sync.beforeRead({ ...target, clientId: randomUUID() })).toBeUndefined();
    expect(await faults.sync.beforeRead({ ...target, pullOperationId: randomUUID() })).toBeUndefined();
  });
});
