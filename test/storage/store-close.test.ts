import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/database.js';
import { createTestStore, POSTGRES_URL, type TestStore } from '../helpers/test-store.js';

/*
 * Closing a store closes its connections, however it was used: on Postgres a store read only through its pool (COPY,
 * prepared reads), never through the query builder, kept its connections until they idled out (10 s), and a reading
 * thread lived on with them, its heap and all (docs/benchmarks.md).
 */
let test: TestStore | undefined;
beforeAll(async () => {
  if (POSTGRES_URL) test = await createTestStore();
});
afterAll(() => test?.destroy());

describe.skipIf(!POSTGRES_URL)('closing a Postgres store', () => {
  it('ends its pool when only the pool was used', async () => {
    const store = await openStore(test!.databaseUrl, { poolSize: 2 });
    await store.pgPool!.query('SELECT 1');
    await store.close();
    expect(store.pgPool!.ended).toBe(true);
  });

  it('ends its pool when the query builder was used too', async () => {
    const store = await openStore(test!.databaseUrl, { poolSize: 2 });
    await store.pgPool!.query('SELECT 1');
    await store.db.selectFrom('record_versions').select('version').execute();
    await store.close();
    expect(store.pgPool!.ended).toBe(true);
  });
});
