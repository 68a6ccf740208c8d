// A fresh, empty store for one run, removed at the end: an SQLite file under bench/.store/, or a new schema
// on the Postgres server named by DATABASE_URL (reached the way test/helpers/test-store.ts does it).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { STORE_DIR } from './config.mjs';

export async function createStore(knobs) {
  if (knobs.postgresUrl) return createPostgresSchema(knobs.postgresUrl);
  fs.mkdirSync(STORE_DIR, { recursive: true });
  const file = path.join(STORE_DIR, `bench-${Date.now()}-${randomBytes(3).toString('hex')}.sqlite`);
  return {
    kind: 'sqlite',
    databaseUrl: file,
    description: 'SQLite (file on the local disk)',
    /** Bytes on disk, with the write-ahead log. */
    sizeBytes: () =>
      ['', '-wal', '-shm'].reduce((sum, suffix) => sum + (fs.statSync(file + suffix, { throwIfNoEntry: false })?.size ?? 0), 0),
    async destroy() {
      for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
      // Leave bench/.store/ itself only if something else is in it.
      if (fs.existsSync(STORE_DIR) && fs.readdirSync(STORE_DIR).length === 0) fs.rmdirSync(STORE_DIR);
    },
  };
}

async function createPostgresSchema(serverUrl) {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const version = await withClient(serverUrl, async (c) => {
    await c.query(`CREATE SCHEMA ${schema}`);
    return (await c.query('SHOW server_version')).rows[0].server_version;
  });
  const separator = serverUrl.includes('?') ? '&' : '?';
  const databaseUrl = `${serverUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    kind: 'postgres',
    databaseUrl,
    schema,
    description: `PostgreSQL ${version} (schema ${schema})`,
    async sizeBytes() {
      const sql = `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`;
      return Number((await withClient(serverUrl, (c) => c.query(sql, [schema]))).rows[0].bytes);
    },
    async destroy() {
      await withClient(serverUrl, async (c) => {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        // The job engine's schema beside it (src/jobs/graphile-job-engine.ts).
        await c.query(`DROP SCHEMA IF EXISTS ${schema}_graphile_worker CASCADE`);
      });
    },
  };
}

/** Throws, naming the address, when no Postgres answers there. */
export async function assertReachable(url) {
  try {
    await withClient(url, (c) => c.query('SELECT 1'));
  } catch (err) {
    throw new Error(`no Postgres answers at ${url.replace(/\/\/[^@/]*@/, '//…@')} (set DATABASE_URL): ${err.message}`);
  }
}

async function withClient(url, action) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}
