import { sql } from 'kysely';
import type { PageRequest } from '../http/paging.js';
import { listPage, type ListContext } from './list-engine.js';
import type { QueryableResource } from './properties.js';

/**
 * A page of a company's operations (pull or push), newest first unless `orderBy` says otherwise: both tables
 * keep the served document in `doc` and number their rows in `seq`.
 */
export async function operationHistory(
  lists: ListContext,
  table: 'pull_operations' | 'push_operations',
  companyId: string,
  resource: QueryableResource,
  page: PageRequest,
): Promise<{ records: string[]; totalResults: number }> {
  const result = await listPage<{ doc: string }>(
    lists,
    {
      from: sql.table(table),
      scope: sql`${sql.ref(`${table}.company_id`)} = ${companyId}`,
      resource,
      select: sql.ref(`${table}.doc`),
      tiebreak: [sql`${sql.ref(`${table}.seq`)} DESC`],
    },
    page,
  );
  return { records: result.rows.map((r) => r.doc), totalResults: result.totalResults };
}
