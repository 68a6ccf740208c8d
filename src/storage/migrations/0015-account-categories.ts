import type { Kysely } from 'kysely';

/**
 * `account_categories`: the categories a client has confirmed for accounts (issue 30's recategorisation,
 * docs/lending/account-categories.md), one row per account of a connection. The enhanced financial reports show a
 * confirmed category in place of the suggested one for every period; deleting the row brings the suggestion back.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_categories')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    /** The taxonomy path, dot-joined, as it is emitted. */
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('modified', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_categories_pk', ['client_id', 'connection_id', 'account_id'])
    .execute();
  await db.schema.createIndex('account_categories_by_company').on('account_categories').columns(['client_id', 'company_id']).execute();
}
