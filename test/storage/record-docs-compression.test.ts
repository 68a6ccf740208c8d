import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestStore, storeKind, type TestStore } from '../helpers/test-store.js';

/** Migration 0010: on Postgres, stored documents are compressed with lz4 where the server supports it. */

let store: TestStore;
beforeAll(async () => {
  store = await createTestStore();
});
afterAll(() => store?.destroy());

describe.runIf(storeKind === 'postgres')('record_docs compression (postgres)', () => {
  it('compresses new documents with lz4 when the server was built with it, and keeps the default otherwise', async () => {
    const { db } = store.store;
    const lz4 = await sql<{ ok: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'
      AND 'lz4' = ANY(enumvals)) AS ok`.execute(db);
    const column = await sql<{ compression: string }>`SELECT attcompression AS compression FROM pg_attribute
      WHERE attrelid = 'record_docs'::regclass AND attname = 'doc'`.execute(db);
    expect(column.rows[0].compression).toBe(lz4.rows[0].ok ? 'l' : '');
  });
});
