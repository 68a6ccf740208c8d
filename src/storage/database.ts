import fs from 'node:fs';
import { boundedCache } from '../lib/bounded-cache.js';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
  sql,
} from 'kysely';
import type { Database } from './schema.js';
import { createSqlDialect, type SqlDialect } from './dialect.js';

export interface Store {
  /** What the store was opened from (a `DATABASE_URL` value), so another thread can open its own connection. */
  url: string;
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** The SQLite connection itself, for the bulk writes of a sync (prepared statements beat query building there). */
  sqlite?: BetterSqlite3.Database;
  /** The Postgres pool itself, for the job engine (it runs its own queries on the same connections). */
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Postgres only: pool size. */
  poolSize?: number;
  /**
   * SQLite only: bytes of the file read through a memory map (default 1 GiB; 0 for none). Pages of stored
   * records are then read in place instead of copied in through read calls; writing threads turn it off.
   */
  mmapBytes?: number;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Resolves a `DATABASE_URL` value (file path, `sqlite:` URL or `postgres://` URL) and opens the store. */
export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  const store = isPostgresUrl(url) ? openPostgres(url, options) : openSqlite(sqliteFilePath(url), options.mmapBytes ?? 1024 ** 3);
  return { ...store, url };
}

/** Whether the store at `url` lives in this connection's memory (SQLite `:memory:`, however spelled): another thread cannot open it. */
export function isInMemoryStore(url: string): boolean {
  return !isPostgresUrl(url) && sqliteFilePath(url) === ':memory:';
}

export function sqliteFilePath(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length);
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  if (url.startsWith('file:')) return url.slice('file:'.length);
  return url;
}

function openSqlite(file: string, mmapBytes: number): Omit<Store, 'url'> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new BetterSqlite3(file);
  // Takes effect only on a new file. Stored records are kilobytes of JSON: on 4 KiB pages most of them spill
  // into overflow pages, which halves the write rate of a sync; 16 KiB pages hold them in place.
  database.pragma('page_size = 16384');
  // WAL lets readers proceed while a sync writes; NORMAL is durable across process crashes in WAL mode.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // The CLI and the server share the file: wait for a lock instead of failing at once.
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  database.pragma(`mmap_size = ${Math.max(0, Math.floor(mmapBytes))}`);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }) });
  return { db, dialect: createSqlDialect('sqlite'), sqlite: database, close: () => db.destroy() };
}

/**
 * Transactions that take the write lock when they begin (`BEGIN IMMEDIATE`), waiting for it under
 * `busy_timeout`. A sync writes from its own thread and connection; a deferred transaction that read first
 * and then tried to write after that thread committed would fail at once with SQLITE_BUSY instead of waiting.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver() {
    return new ImmediateSqliteDriver(this.settings);
  }
}

/**
 * Hands the query builder the same prepared statement for the same SQL text instead of preparing it again on
 * every query (preparing costs as much as running a small query). Safe because better-sqlite3 runs each
 * statement to completion synchronously and nothing here streams rows. Least recently used statements go first.
 * A filter's shape is the client's (how many comparisons, which fields), so the cache is bounded by entries and by
 * SQL text, which a compiled statement's memory grows with; a statement longer than the whole budget is not kept.
 * A compiled statement holds about 17 bytes of SQLite's memory (outside V8's heap) per byte of its text (measured:
 * 500 statements of 500 comparisons, 8.3 MB of SQL, took 144 MB), so 1 MB of text bounds the cache near 20 MB; the
 * statements of ordinary requests are short, and hundreds of them fit.
 */
function withStatementCache(database: BetterSqlite3.Database, limits = { entries: 500, sqlBytes: 1024 * 1024 }) {
  const statements = boundedCache<BetterSqlite3.Statement>({ entries: limits.entries, bytes: limits.sqlBytes });
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

function openPostgres(url: string, options: StoreOptions): Omit<Store, 'url'> {
  // int8 (COUNT, bigserial) arrives as text by default; our counts fit easily in a double.
  pg.types.setTypeParser(20, (value: string) => Number(value));
  // A schema other than `public` can be chosen in the URL: `?options=-c%20search_path%3Dmyschema`.
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // An idle connection the server drops (restart, failover) must not crash the process: the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return {
    db,
    dialect: createSqlDialect('postgres'),
    pgPool: pool,
    close: async () => {
      await db.destroy();
      // Kysely ends the pool only if a query went through it: a store used only through `pgPool` (a COPY, a prepared
      // read) would otherwise keep its connections open until they idle out, and the process or thread alive with them.
      if (!pool.ending) await pool.end();
    },
  };
}

/** Whether the store answers a query (the readiness probe). */
export async function storeAnswers(db: Kysely<Database>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
