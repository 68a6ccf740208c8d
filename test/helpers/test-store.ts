import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type Store } from '../../src/storage/database.js';
import { migrateTo, migrateToLatest } from '../../src/storage/migrate.js';

/** Postgres when TEST_DATABASE_URL is set (CI's second leg), otherwise a fresh SQLite file. */
export const POSTGRES_URL = process.env.TEST_DATABASE_URL;
export const storeKind = POSTGRES_URL ? 'postgres' : 'sqlite';

export interface TestStore {
  /** A DATABASE_URL that reaches exactly this store (for the CLI and other processes). */
  databaseUrl: string;
  store: Store;
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated, isolated store: its own SQLite file, or its own Postgres schema. `migrateTo` stops at the
 * named migration instead of the latest (for tests of a later migration over data in an older schema).
 */
export async function createTestStore(options: { migrateTo?: string } = {}): Promise<TestStore> {
  const migrate = (store: Store) =>
    options.migrateTo ? migrateTo(store.db, store.dialect.name, options.migrateTo) : migrateToLatest(store.db, store.dialect.name);
  if (POSTGRES_URL) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const separator = POSTGRES_URL.includes('?') ? '&' : '?';
    const databaseUrl = `${POSTGRES_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const store = await openStore(databaseUrl);
    await migrate(store);
    return {
      databaseUrl,
      store,
      async destroy() {
        await store.close();
        const c = new pg.Client({ connectionString: POSTGRES_URL });
        await c.connect();
        await c.query(`DROP SCHEMA ${schema} CASCADE`);
        await c.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-test-'));
  const databaseUrl = path.join(dir, 'test.sqlite');
  const store = await openStore(databaseUrl);
  await migrate(store);
  return {
    databaseUrl,
    store,
    async destroy() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
