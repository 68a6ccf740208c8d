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

async function adminQuery(text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/**
 * A fresh, migrated, isolated store: its own SQLite file, or its own Postgres database. `migrateTo` stops at the
 * named migration instead of the latest (for tests of a later migration over data in an older schema).
 */
export async function createTestStore(options: { migrateTo?: string } = {}): Promise<TestStore> {
  const migrate = (store: Store) =>
    options.migrateTo ? migrateTo(store.db, store.dialect.name, options.migrateTo) : migrateToLatest(store.db, store.dialect.name);
  if (POSTGRES_URL) {
    // A database of its own, not only a schema: graphile-worker's notifications (new jobs, migrations) are
    // database-wide, and a worker shuts down when another store's job schema is installed in its database.
    const name = `t_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    const databaseUrl = url.toString();
    const store = await openStore(databaseUrl);
    await migrate(store);
    return {
      databaseUrl,
      store,
      async destroy() {
        await store.close();
        await adminQuery(`DROP DATABASE ${name} WITH (FORCE)`);
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
