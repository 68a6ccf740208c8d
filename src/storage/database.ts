import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { createSqlDialect, type SqlDialect } from './dialect.js';

export interface Store {
  db: Kysely<Database>;
  dialect: SqlDialect;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Postgres only: the schema to use (tests isolate themselves this way). Created if missing. */
  pgSchema?: string;
  /** Postgres only: pool size. */
  poolSize?: number;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Resolves a `DATABASE_URL` value (file path, `sqlite:` URL or `postgres://` URL) and opens the store. */
export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(url)) return openPostgres(url, options);
  return openSqlite(sqliteFilePath(url));
}

export function sqliteFilePath(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length);
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  if (url.startsWith('file:')) return url.slice('file:'.length);
  return url;
}

function openSqlite(file: string): Store {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new BetterSqlite3(file);
  // WAL lets readers proceed while a sync writes; NORMAL is durable across process crashes in WAL mode.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // The CLI and the server share the file: wait for a lock instead of failing at once.
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: createSqlDialect('sqlite'), close: () => db.destroy() };
}

async function openPostgres(url: string, options: StoreOptions): Promise<Store> {
  // int8 (COUNT, bigserial) arrives as text by default; our counts fit easily in a double.
  pg.types.setTypeParser(20, (value: string) => Number(value));
  const schema = options.pgSchema;
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    options: schema ? `-c search_path=${schema}` : undefined,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: createSqlDialect('postgres'), close: () => db.destroy() };
}
