import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { SqlDialect } from '../storage/dialect.js';
import type { PageRequest } from '../http/paging.js';
import { createCountCache, type CountCache } from './count-cache.js';
import type { QueryableResource } from './properties.js';
import { parseQuery } from './query-parser.js';
import { compileQuery } from './query-compiler.js';
import { compileOrderBy } from './order-by.js';
import { queryError } from './row-query.js';

/** One listable collection: where its rows are, who may see them, and how a row is served. */
export interface ListSource {
  /** FROM clause (a table name, possibly with an alias). */
  from: RawBuilder<unknown>;
  /** Condition that scopes the rows to the caller (client first). */
  scope: RawBuilder<unknown>;
  resource: QueryableResource;
  /** The select list; rows come back with these columns (usually the served JSON text as `doc`). */
  select: RawBuilder<unknown>;
  /** Final ORDER BY terms that make the order total (and so paging stable). */
  tiebreak: RawBuilder<unknown>[];
  /** Identifies the scope and its data version; counts are cached under it. Omit to count every time. */
  countKey?: string;
  /**
   * A column unique in `from`. With it a page past the first is chosen by key before any row is read whole:
   * the skipped rows are sorted and stepped over as keys, not as full rows (on Postgres the last of 10,000
   * companies' pages: 10 ms with its sort spilled to disk, against 3.4 ms).
   */
  key?: RawBuilder<unknown>;
}

export interface ListResult<Row> {
  rows: Row[];
  totalResults: number;
}

/** What the list engine reads with: the store, its dialect and the count cache of this server. */
export interface ListContext {
  db: Kysely<any>;
  dialect: SqlDialect;
  counts: CountCache;
}

export function createListContext(db: Kysely<any>, dialect: SqlDialect): ListContext {
  return { db, dialect, counts: createCountCache() };
}

/**
 * A page of the served documents of one of the client's companies, from a table that keeps them in `doc` with the
 * client and company on each row and numbers its rows in `seq` (operation histories: newest first unless `orderBy`
 * says otherwise).
 */
export async function companyDocsPage(
  lists: ListContext,
  table: 'pull_operations' | 'push_operations',
  clientId: string,
  companyId: string,
  resource: QueryableResource,
  page: PageRequest,
): Promise<{ records: string[]; totalResults: number }> {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  const result = await listPage<{ doc: string }>(
    lists,
    {
      from: sql.table(table),
      scope: sql`${column('client_id')} = ${clientId} AND ${column('company_id')} = ${companyId}`,
      resource,
      select: column('doc'),
      tiebreak: [sql`${column('seq')} DESC`],
      key: column('seq'),
    },
    page,
  );
  return { records: result.rows.map((r) => r.doc), totalResults: result.totalResults };
}

/** Runs a paged, filtered, ordered read of a list. Query errors become 400s with the documented bodies. */
export async function listPage<Row = { doc: string }>(
  ctx: ListContext,
  source: ListSource,
  request: PageRequest,
): Promise<ListResult<Row>> {
  const { db, dialect } = ctx;
  const where = request.query ? sql`${source.scope} AND ${compileFilter(request.query, source.resource, dialect)}` : source.scope;
  const order = [...(request.orderBy ? compileOrdering(request.orderBy, source.resource) : []), ...source.tiebreak];
  const offset = (request.page - 1) * request.pageSize;

  const totalResults = await countRows(ctx, source, where, request.query);
  if (offset >= totalResults) return { rows: [], totalResults };
  const { rows } =
    source.key && offset > 0
      ? // The subquery applied the filter; the outer read keeps to the client's rows and takes the page's by key.
        await sql<Row>`SELECT ${source.select} FROM ${source.from} WHERE ${source.scope} AND ${source.key} IN (
          SELECT ${source.key} FROM ${source.from} WHERE ${where} ORDER BY ${sql.join(order)} LIMIT ${request.pageSize} OFFSET ${offset}
        ) ORDER BY ${sql.join(order)}`.execute(db)
      : await sql<Row>`SELECT ${source.select} FROM ${source.from} WHERE ${where}
          ORDER BY ${sql.join(order)} LIMIT ${request.pageSize} OFFSET ${offset}`.execute(db);
  return { rows, totalResults };
}

/** Counts rows of a list under its count key (exact: the key names a data version). */
export async function countRows(ctx: ListContext, source: ListSource, where: RawBuilder<unknown>, query?: string): Promise<number> {
  const { db, counts } = ctx;
  const key = source.countKey === undefined ? undefined : `${source.countKey}\u0000${query ?? ''}`;
  const cached = key === undefined ? undefined : counts.get(key);
  if (cached !== undefined) return cached;
  const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${source.from} WHERE ${where}`.execute(db);
  const n = Number(rows[0]?.n ?? 0);
  if (key !== undefined) counts.set(key, n);
  return n;
}

/** Compiles a filter in the query language; errors become 400s naming `parameter`. */
export function compileFilter(text: string, resource: QueryableResource, dialect: SqlDialect, parameter = 'query'): RawBuilder<unknown> {
  try {
    return compileQuery(parseQuery(text), resource, dialect);
  } catch (err) {
    throw queryError(err, parameter);
  }
}

/** Compiles `orderBy`; errors become 400s naming it. */
export function compileOrdering(orderBy: string, resource: QueryableResource): RawBuilder<unknown>[] {
  try {
    return compileOrderBy(orderBy, resource);
  } catch (err) {
    throw queryError(err, 'orderBy');
  }
}
