import { sql, type Kysely, type RawBuilder } from 'kysely';
import { openStore, type Store } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { PageRequest } from '../http/paging.js';
import { compileFilter, compileOrdering, countRows, createListContext, type ListContext } from '../query/list-engine.js';
import type { QueryableResource } from '../query/properties.js';
import { recordKey, versionKeyRange } from './record-key.js';
import { keptLayout, keptTuple, type KeptField } from './record-fields.js';
import { PositionListCache } from './position-lists.js';
import { versionInfo } from './record-versions.js';
import { queryPrepared, queryPreparedArrays } from '../storage/prepared.js';
import { digestedVersions, readVersionDigest } from './version-digests.js';

/** A read of one data type's complete versions: which versions, how its records are queried, any narrowing. */
export interface RecordListRequest {
  versions: number[];
  resource: QueryableResource;
  /** A further condition (e.g. one bank account's transactions) and the key it is cached under. */
  extra?: { condition: RawBuilder<unknown>; key: string };
  page: PageRequest;
}

/** The prepared page reads on Postgres (see range and byPositions for what each does). */
const RANGE_DENSE = 'SELECT doc FROM record_docs WHERE key >= $1 AND key < $2 ORDER BY key LIMIT $3';
const RANGE_INDEXED = `SELECT d.doc FROM record_index r JOIN record_docs d ON d.key = r.doc_key
  WHERE r.version = $1 AND r.position >= $2 AND r.position < $3 ORDER BY r.position LIMIT $4`;
const BY_KEYS = 'SELECT key - $1::bigint AS pos, doc FROM record_docs WHERE key = ANY($2::bigint[])';
const BY_POSITIONS = `SELECT r.position AS pos, d.doc FROM record_index r JOIN record_docs d ON d.key = r.doc_key
  WHERE r.version = $1 AND r.position = ANY($2::integer[])`;

/** Joins each narrow row to its document; the document is read only when a condition or order needs it. */
const FROM = sql`record_index r LEFT JOIN record_docs d ON d.key = r.doc_key`;
/** Postgres: batches of kept tuples asked for ahead of the one being decoded. */
const KEPT_AHEAD = 2;

/**
 * Pages of stored records without walking skipped rows:
 * - an unfiltered page of one version is a range read of the documents' keys (positions are dense);
 * - a filtered or ordered list is computed once per (version, query, orderBy) as the ordered positions of its
 *   matches (one pass over the narrow index table) and cached: versions never change once complete, so the
 *   list is exact for as long as anyone reads that version. A page is then its slice of positions, fetched by
 *   key. The list's length is `totalResults`.
 * Reads spanning several versions (a company with several connections of one source type) fall back to
 * LIMIT/OFFSET.
 */
export function createRecordReader(store: Store, lists: ListContext, options: { cacheBytes?: number } = {}) {
  const { db, dialect } = store;
  // SQLite hands back the stored UTF-8 bytes of a BLOB as they are: a page is then copied together without
  // decoding every document into a JS string and encoding it back for the socket.
  const pageDoc = (column: string) => (dialect.name === 'sqlite' ? sql.raw(`CAST(${column} AS BLOB)`) : sql.raw(column));
  type Doc = string | Buffer;
  const positions = new PositionListCache(options.cacheBytes ?? 64 * 1024 * 1024);
  // Postgres: the page reads every request makes run as prepared statements (storage/prepared.ts).
  const pool = store.pgPool;
  const KEPT_ROW = 'SELECT r.record_id, r.f_kept FROM record_index r WHERE r.version = ? AND r.is_deleted = 0';
  const keptBatch = store.sqlite && {
    first: store.sqlite.prepare(`${KEPT_ROW} ORDER BY r.record_id LIMIT ?`).raw(true),
    next: store.sqlite.prepare(`${KEPT_ROW} AND r.record_id > ? ORDER BY r.record_id LIMIT ?`).raw(true),
  };
  /** The documents of some records of a version, by record id: one query for a batch's records without a tuple. */
  async function docsOf(version: number, recordIds: string[]): Promise<Map<string, string>> {
    const { rows } = await sql<{ record_id: string; doc: string }>`SELECT r.record_id, d.doc FROM record_index r
      JOIN record_docs d ON d.key = r.doc_key WHERE r.version = ${version} AND r.record_id IN (${sql.join(recordIds)})`.execute(db);
    return new Map(rows.map((r) => [r.record_id, r.doc]));
  }

  /** A version's size and density (see record-versions.ts), read once: a complete version never changes. */
  async function cachedVersionInfo(version: number): Promise<{ size: number; dense: boolean }> {
    // Both under one number in the count cache (size * 2 + dense), so one entry cannot outlive the other.
    const key = `record-version\u0000${version}`;
    const packed = lists.counts.get(key);
    if (packed !== undefined) return { size: Math.floor(packed / 2), dense: packed % 2 === 1 };
    const info = await versionInfo(db, version);
    lists.counts.set(key, info.size * 2 + (info.dense ? 1 : 0));
    return info;
  }

  /**
   * Documents of consecutive positions of one version. The LIMIT repeats what the range already bounds: without it
   * Postgres plans the range from its statistics, and on a table not analysed since a large sync (autovacuum off, or
   * not run yet) it expects a tenth of the table and starts parallel workers and JIT for 100 rows: 41 ms instead of
   * 0.08 ms at 1,000,000 invoices (docs/benchmarks.md). With the LIMIT the plan is an index scan whatever the
   * statistics say.
   */
  async function range(version: number, dense: boolean, offset: number, count: number): Promise<Doc[]> {
    if (pool) {
      const rows = dense
        ? await queryPrepared<{ doc: string }>(pool, 'record-range', RANGE_DENSE, [
            recordKey(dialect, version, offset),
            recordKey(dialect, version, offset + count),
            count,
          ])
        : await queryPrepared<{ doc: string }>(pool, 'record-range-indexed', RANGE_INDEXED, [version, offset, offset + count, count]);
      return rows.map((r) => r.doc);
    }
    if (!dense) {
      const { rows } = await sql<{ doc: Doc }>`SELECT ${pageDoc('d.doc')} AS doc FROM record_index r JOIN record_docs d ON d.key = r.doc_key
        WHERE r.version = ${version} AND r.position >= ${offset} AND r.position < ${offset + count} ORDER BY r.position
        LIMIT ${count}`.execute(db);
      return rows.map((r) => r.doc);
    }
    const { rows } = await sql<{ doc: Doc }>`SELECT ${pageDoc('doc')} AS doc FROM record_docs
      WHERE key >= ${recordKey(dialect, version, offset)} AND key < ${recordKey(dialect, version, offset + count)} ORDER BY key
      LIMIT ${count}`.execute(db);
    return rows.map((r) => r.doc);
  }

  /** Documents of the given positions of one version, in the order given. */
  async function byPositions(version: number, dense: boolean, wanted: Int32Array): Promise<Doc[]> {
    if (wanted.length === 0) return [];
    let rows: { pos: number | string; doc: Doc }[];
    if (pool) {
      const [first] = versionKeyRange(dialect, version);
      rows = dense
        ? await queryPrepared(pool, 'record-keys', BY_KEYS, [first, Array.from(wanted, (p) => recordKey(dialect, version, p))])
        : await queryPrepared(pool, 'record-positions', BY_POSITIONS, [version, Array.from(wanted)]);
    } else if (dense) {
      const [first] = versionKeyRange(dialect, version);
      const keys = Array.from(wanted, (p) => recordKey(dialect, version, p));
      ({ rows } = await sql<{ pos: number | string; doc: Doc }>`SELECT key - ${first} AS pos, ${pageDoc('doc')} AS doc FROM record_docs
        WHERE key IN (${sql.join(keys)})`.execute(db));
    } else {
      ({ rows } = await sql<{ pos: number | string; doc: Doc }>`SELECT r.position AS pos, ${pageDoc('d.doc')} AS doc FROM record_index r
        JOIN record_docs d ON d.key = r.doc_key WHERE r.version = ${version} AND r.position IN (${sql.join(Array.from(wanted))})`.execute(
        db,
      ));
    }
    const docs = new Map(rows.map((r) => [Number(r.pos), r.doc]));
    return Array.from(wanted, (p) => docs.get(p) as Doc);
  }

  function conditions(request: RecordListRequest, versionCondition: RawBuilder<unknown>): RawBuilder<unknown> {
    const parts = [versionCondition];
    if (request.extra) parts.push(request.extra.condition);
    if (request.page.query) parts.push(compileFilter(request.page.query, request.resource, dialect));
    return sql.join(parts, sql` AND `);
  }

  return {
    async list(request: RecordListRequest): Promise<{ records: Doc[]; totalResults: number }> {
      const { page } = request;
      const offset = (page.page - 1) * page.pageSize;
      const order = page.orderBy ? compileOrdering(page.orderBy, request.resource) : [];

      if (request.versions.length !== 1) {
        const where = conditions(request, sql`r.version IN (${sql.join(request.versions)})`);
        const countKey = `m\u0000${request.versions.join(',')}\u0000${request.extra?.key ?? ''}`;
        const totalResults = await countRows(
          lists,
          { from: FROM, scope: where, resource: request.resource, select: sql`1`, tiebreak: [], countKey },
          where,
          page.query,
        );
        if (offset >= totalResults) return { records: [], totalResults };
        const { rows } = await sql<{ doc: Doc }>`SELECT ${pageDoc('d.doc')} AS doc FROM ${FROM} WHERE ${where}
          ORDER BY ${sql.join([...order, sql`r.version`, sql`r.position`])} LIMIT ${page.pageSize} OFFSET ${offset}`.execute(db);
        return { records: rows.map((r) => r.doc), totalResults };
      }

      const [version] = request.versions;
      const info = await cachedVersionInfo(version);
      if (!page.query && !page.orderBy && !request.extra) {
        const totalResults = info.size;
        if (offset >= totalResults) return { records: [], totalResults };
        return { records: await range(version, info.dense, offset, Math.min(page.pageSize, totalResults - offset)), totalResults };
      }

      // Compiled first, so a bad query answers 400 before anything is cached.
      const where = conditions(request, sql`r.version = ${version}`);
      const key = `${version}\u0000${page.query ?? ''}\u0000${page.orderBy ?? ''}\u0000${request.extra?.key ?? ''}`;
      const matches = await positions.get(key, async () => {
        const { rows } = await sql<{ position: number }>`SELECT r.position FROM ${FROM} WHERE ${where}
          ORDER BY ${sql.join([...order, sql`r.position`])}`.execute(db);
        return Int32Array.from(rows, (r) => Number(r.position));
      });
      if (offset >= matches.length) return { records: [], totalResults: matches.length };
      return {
        records: await byPositions(version, info.dense, matches.subarray(offset, offset + page.pageSize)),
        totalResults: matches.length,
      };
    },

    /** One record by id from the first of the versions that has it. */
    async byId(versions: number[], recordId: string): Promise<string | undefined> {
      const { rows } = await sql<{ doc: string }>`SELECT d.doc FROM ${FROM}
        WHERE r.version IN (${sql.join(versions)}) AND r.record_id = ${recordId} ORDER BY r.version LIMIT 1`.execute(db);
      return rows[0]?.doc;
    },

    /**
     * Live records by id from the versions (for each id, the first version holding it), as their stored JSON: one
     * query per 500 ids (a report's page of invoices looking up their payments).
     */
    async byIds(versions: number[], recordIds: readonly string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      if (versions.length === 0) return out;
      const wanted = [...new Set(recordIds)];
      for (let i = 0; i < wanted.length; i += 500) {
        const ids = wanted.slice(i, i + 500);
        const { rows } = await sql<{ record_id: string; doc: string }>`SELECT r.record_id, d.doc FROM ${FROM}
          WHERE r.version IN (${sql.join(versions)}) AND r.record_id IN (${sql.join(ids)}) AND r.is_deleted = 0
          ORDER BY r.version`.execute(db);
        for (const row of rows) if (!out.has(row.record_id)) out.set(row.record_id, row.doc);
      }
      return out;
    },

    /** The first record of the newest version (single-record data types). */
    async first(versions: number[]): Promise<string | undefined> {
      const newest = Math.max(...versions);
      const { rows } = await sql<{ doc: string }>`SELECT d.doc FROM record_index r JOIN record_docs d ON d.key = r.doc_key
        WHERE r.version = ${newest} AND r.position = 0`.execute(db);
      return rows[0]?.doc;
    },

    /** How many records the versions hold (their sizes as registered: what a reader of all of them goes through). */
    async sizeOf(versions: number[]): Promise<number> {
      let size = 0;
      for (const version of versions) size += (await cachedVersionInfo(version)).size;
      return size;
    },

    /**
     * The kept tuple (KEPT_FIELDS of its data type, record-fields.ts) of every live record of the versions, handed to
     * `visit` one by one, `batch` positions of a version at a time: the tuple written with the version, so a report
     * over a million records scans narrow rows; a version written before there were kept tuples has its documents
     * read and kept here instead.
     */
    async eachKept(versions: number[], fields: readonly KeptField[], visit: (tuple: unknown[]) => void, batch = 10_000): Promise<void> {
      const layout = keptLayout(fields);
      /**
       * A batch of [record id, kept tuple as written] in order: each tuple with its layout dropped; the records with
       * none, or one of another layout (written before KEPT_FIELDS changed), kept from their documents, all of the
       * batch's in one query.
       */
      const decode = async (version: number, rows: [string, string | null][]) => {
        // Loops rather than maps: a million rows make no array each.
        const tuples: (unknown[] | undefined)[] = new Array(rows.length);
        let missing: string[] | undefined;
        for (let i = 0; i < rows.length; i++) {
          const kept = rows[i][1];
          if (kept !== null) {
            const tuple = JSON.parse(kept) as unknown[];
            if (tuple.pop() === layout) {
              tuples[i] = tuple;
              continue;
            }
          }
          (missing ??= []).push(rows[i][0]);
        }
        const docs = missing ? await docsOf(version, missing) : undefined;
        for (let i = 0; i < rows.length; i++) visit(tuples[i] ?? keptTuple(fields, JSON.parse(docs?.get(rows[i][0]) ?? '{}')));
      };
      for (const version of versions) {
        if (keptBatch) {
          // SQLite: in key order (the index table's primary key, version then record id), a batch at a time from the
          // last id: the rows are stored in that order, so a batch is one sequential read. A prepared statement
          // answers arrays (a million rows make a million objects fewer).
          // (Joined into one text a batch by the store and parsed at once, the same tuples took 1.6 times as long
          // here, and 2.7 times on Postgres, whose string_agg sorts: bench/kept-read.mjs, docs/benchmarks.md.)
          let after: string | null = null;
          for (;;) {
            const rows = (after === null ? keptBatch.first.all(version, batch) : keptBatch.next.all(version, after, batch)) as [
              string,
              string | null,
            ][];
            await decode(version, rows);
            if (rows.length < batch) break;
            after = rows[rows.length - 1][0];
            // Other requests run between batches: better-sqlite3 reads on this thread.
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
          continue;
        }
        // Postgres: by ranges of positions, each a bounded read whatever the planner's statistics say (an open-ended
        // `record_id >` with stale statistics after a large sync is planned as a scan and sort of the rest of the
        // version, for every batch). Two batches are asked for ahead while one is decoded, so the server reads while
        // this process works; rows come as arrays from a prepared statement (no object per row).
        const { size } = await cachedVersionInfo(version);
        const page = (from: number) =>
          queryPreparedArrays<[string, string | null]>(
            pool!,
            'kept-batch',
            `SELECT r.record_id, r.f_kept FROM record_index r
              WHERE r.version = $1 AND r.position >= $2 AND r.position < $3 AND r.is_deleted = 0 ORDER BY r.position`,
            [version, from, from + batch],
          );
        const ahead: ReturnType<typeof page>[] = [];
        let asked = 0;
        const askAhead = () => {
          while (ahead.length < KEPT_AHEAD && asked < size) {
            const next = page(asked);
            // Should decoding a batch throw, the batches asked for ahead must not fail unheard.
            next.catch(() => {});
            ahead.push(next);
            asked += batch;
          }
        };
        askAhead();
        while (ahead.length > 0) {
          const rows = await ahead.shift()!;
          askAhead();
          await decode(version, rows);
        }
      }
    },

    /** A version's digest of a kind (version-digests.ts), in its stored pieces; undefined when it has none. */
    digestOf(version: number, kind: string): Promise<Uint8Array[] | undefined> {
      return readVersionDigest(store, version, kind);
    },

    /** Which of the versions have a digest of the kind. */
    digested(versions: number[], kind: string): Promise<Set<number>> {
      return digestedVersions(db, versions, kind);
    },

    /** Every live record of the versions, in id order (report-like types, a few hundred records). */
    async allLive(versions: number[]): Promise<string[]> {
      const { rows } = await sql<{ doc: string }>`SELECT d.doc FROM ${FROM}
        WHERE r.version IN (${sql.join(versions)}) AND r.is_deleted = 0 ORDER BY r.record_id`.execute(db);
      return rows.map((r) => r.doc);
    },
  };
}

export type RecordReader = ReturnType<typeof createRecordReader>;

/**
 * A reader with caches of its own, for one read of a version that is not complete yet (a sync's digest): what it
 * learns of that version (its size) must not outlive the read, since a run that takes the sync over writes it again.
 */
export function transientRecordReader(store: Store): RecordReader {
  return createRecordReader(store, createListContext(store.db, store.dialect));
}

/** A reader over a connection of its own to the store at `url`: for a thread that reads while another answers requests. */
export async function openRecordReader(url: string): Promise<{ reader: RecordReader; close(): Promise<void> }> {
  const store = await openStore(url, { poolSize: 2 });
  return { reader: transientRecordReader(store), close: () => store.close() };
}

/** Whether a version holds a (not deleted) record with this id. */
export async function hasRecord(db: Kysely<Database>, version: number, recordId: string): Promise<boolean> {
  const row = await db
    .selectFrom('record_index')
    .select('record_id')
    .where('version', '=', version)
    .where('record_id', '=', recordId)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
  return row !== undefined;
}
