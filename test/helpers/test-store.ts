import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runMigrations } from 'graphile-worker';
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

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/storage/migrations/', import.meta.url));
const GRAPHILE_WORKER_VERSION = JSON.parse(
  fs.readFileSync(fileURLToPath(new URL('../../node_modules/graphile-worker/package.json', import.meta.url)), 'utf8'),
).version as string;
let template: Promise<string> | undefined;

/**
 * A Postgres database holding the latest schema, ours and graphile-worker's, that test databases are copied from
 * (`CREATE DATABASE … TEMPLATE`): a copy takes a tenth of the time migrating a new database takes, which on CI's 2
 * cores is about a minute of the Postgres leg. Its name carries a hash of the migrations' sources and of
 * graphile-worker's version, so a changed schema makes (and uses) a new one; older ones are dropped. Test processes
 * running at once make it once, under an advisory lock.
 */
function templateDatabase(): Promise<string> {
  template ??= (async () => {
    const hash = createHash('sha256').update(GRAPHILE_WORKER_VERSION);
    for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
    const name = `lp_template_${hash.digest('hex').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`SELECT pg_advisory_lock(hashtext('ledgerport test template'))`);
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'lp_template_%'`);
      for (const { datname } of rows) if (datname !== name) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      if (!rows.some((r) => r.datname === name)) {
        // Made under another name and renamed when complete, so a run stopped half-way leaves no half-made template.
        const making = `${name}_making`;
        await admin.query(`DROP DATABASE IF EXISTS ${making} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${making}`);
        const url = new URL(POSTGRES_URL!);
        url.pathname = `/${making}`;
        const store = await openStore(url.toString());
        try {
          await migrateToLatest(store.db, store.dialect.name);
          await runMigrations({ pgPool: store.pgPool!, schema: 'graphile_worker' });
        } finally {
          await store.close();
        }
        await admin.query(`ALTER DATABASE ${making} RENAME TO ${name}`);
      }
      return name;
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(hashtext('ledgerport test template'))`).catch(() => undefined);
      await admin.end();
    }
  })();
  return template;
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
    // The latest schema is copied from the template; a test of a migration starts from an empty database.
    await adminQuery(options.migrateTo ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${await templateDatabase()}`);
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
