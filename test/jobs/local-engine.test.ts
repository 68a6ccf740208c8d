import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJobEngine } from '../../src/jobs/local-job-engine.js';
import { until } from '../helpers/processes.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';

/** The embedded engine's housekeeping: finished jobs are kept a day, then deleted. */

let store: TestStore;
beforeAll(async () => {
  store = await createTestStore();
});
afterAll(async () => {
  await store.destroy();
});

describe('the in-process job engine', () => {
  it('deletes finished jobs older than a day and keeps the rest', async () => {
    const { db } = store.store;
    const day = 86_400_000;
    const row = (id: string, status: string, ageMs: number) => ({
      id,
      kind: 'noop',
      payload: '{}',
      status,
      run_after: new Date(Date.now() - ageMs).toISOString(),
      created: new Date(Date.now() - ageMs).toISOString(),
    });
    await db
      .insertInto('jobs')
      .values([
        row('old-done', 'done', 2 * day),
        row('old-failed', 'failed', 2 * day),
        row('new-done', 'done', 1000),
        row('waiting', 'queued', 2 * day),
      ])
      .execute();
    const ran: string[] = [];
    const engine = createLocalJobEngine(db, { log: { error() {}, warn() {}, info() {} }, pollMs: 20 });
    await engine.start({ noop: { run: async () => void ran.push('noop') } });
    try {
      await until('the queued job to run', async () => (ran.length === 1 ? true : undefined), 10_000);
      const left = await db.selectFrom('jobs').select(['id', 'status']).orderBy('id').execute();
      expect(left).toEqual([
        { id: 'new-done', status: 'done' },
        { id: 'waiting', status: 'done' },
      ]);
    } finally {
      await engine.stop();
    }
  });
});
