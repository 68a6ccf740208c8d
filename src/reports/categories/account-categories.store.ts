import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { DeletionStep } from '../../storage/deletion.js';

/** The categories a client confirmed for accounts (migration 0015; docs/lending/account-categories.md). */

export interface ConfirmedCategory {
  connectionId: string;
  accountId: string;
  /** The taxonomy path, dot-joined. */
  category: string;
  modified: string;
}

/** Every category confirmed for the accounts of a company's connections. */
export async function confirmedCategories(db: Kysely<Database>, clientId: string, companyId: string): Promise<ConfirmedCategory[]> {
  const rows = await db
    .selectFrom('account_categories')
    .select(['connection_id', 'account_id', 'category', 'modified'])
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .execute();
  return rows.map((r) => ({ connectionId: r.connection_id, accountId: r.account_id, category: r.category, modified: r.modified }));
}

/** Confirms (or changes) an account's category. */
export async function confirmCategory(
  executor: Kysely<Database>,
  clientId: string,
  row: { companyId: string; connectionId: string; accountId: string; category: string; modified: string },
): Promise<void> {
  await executor
    .insertInto('account_categories')
    .values({
      client_id: clientId,
      company_id: row.companyId,
      connection_id: row.connectionId,
      account_id: row.accountId,
      category: row.category,
      modified: row.modified,
    })
    .onConflict((oc) =>
      oc.columns(['client_id', 'connection_id', 'account_id']).doUpdateSet({ category: row.category, modified: row.modified }),
    )
    .execute();
}

/** Drops an account's confirmed category; whether there was one. */
export async function dropCategory(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  accountId: string,
): Promise<boolean> {
  const result = await executor
    .deleteFrom('account_categories')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The categories' part of deleting a company or a connection. */
export const deleteCategoriesStep: DeletionStep = async (trx, clientId, scope) => {
  let query = trx.deleteFrom('account_categories').where('client_id', '=', clientId).where('company_id', '=', scope.companyId);
  if (scope.connectionId !== undefined) query = query.where('connection_id', '=', scope.connectionId);
  await query.execute();
};
