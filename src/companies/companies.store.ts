import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../storage/dialect.js';
import type { PageRequest } from '../http/paging.js';
import { compileFilter, listPage, type ListContext } from '../query/list-engine.js';
import type { PropertyDef, QueryableResource } from '../query/properties.js';
import { compileComparison, QuerySemanticError } from '../query/query-compiler.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import { connectionColumns } from '../connections/connections.store.js';
import type { DeletionStep } from '../storage/deletion.js';
import { Company } from './company.schema.js';
import type { Database } from '../storage/schema.js';
import { lockClient } from '../clients/clients.store.js';

export interface ConnectionDocRow {
  id: string;
  company_id: string;
  doc: string;
}

export interface CompanyRow {
  id: string;
  client_id: string;
  doc: string;
  last_sync: string | null;
}

/**
 * Storage of companies. Writes move the client's companies version in the same transaction. `deleteOwned` deletes
 * what a company owns (its connections, syncs, uploads...) in the deletion's transaction, before the company goes.
 */
export function createCompaniesStore(db: Kysely<Database>, deleteOwned: DeletionStep) {
  return {
    /** The company whoever owns it: callers decide between 403 and 404. */
    async find(companyId: string): Promise<CompanyRow | undefined> {
      return db.selectFrom('companies').select(['id', 'client_id', 'doc', 'last_sync']).where('id', '=', companyId).executeTakeFirst();
    },

    /**
     * Inserts a company unless the client already holds `maxCompanies`; returns false when at the limit.
     */
    async insert(
      clientId: string,
      row: { id: string; name: string; created: string; doc: string },
      maxCompanies?: number,
      /** Runs in the same transaction after the insert (the `company.created` event). */
      inTransaction?: (trx: Kysely<Database>) => Promise<void>,
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        await lockClient(trx, clientId, true);
        if (maxCompanies !== undefined) {
          const held = await trx
            .selectFrom('companies')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('client_id', '=', clientId)
            .executeTakeFirst();
          if (Number(held?.n ?? 0) >= maxCompanies) return false;
        }
        await trx
          .insertInto('companies')
          .values({ ...row, client_id: clientId, last_sync: null })
          .execute();
        await inTransaction?.(trx);
        return true;
      });
    },

    async update(clientId: string, companyId: string, fields: { name: string; doc: string }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, clientId, true);
        await trx.updateTable('companies').set(fields).where('client_id', '=', clientId).where('id', '=', companyId).execute();
      });
    },

    /** Deletes the company with all it owns (see `deleteOwned`). */
    async delete(clientId: string, companyId: string, inTransaction?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, clientId, true);
        await deleteOwned(trx, clientId, { companyId });
        await trx.deleteFrom('companies').where('client_id', '=', clientId).where('id', '=', companyId).execute();
        await inTransaction?.(trx);
      });
    },

    /** Connection rows of these companies, oldest first, grouped by company. */
    async connectionsOf(clientId: string, companyIds: readonly string[]): Promise<Map<string, ConnectionDocRow[]>> {
      const byCompany = new Map<string, ConnectionDocRow[]>();
      if (companyIds.length === 0) return byCompany;
      const rows = await db
        .selectFrom('connections')
        .select(['id', 'company_id', 'doc'])
        .where('client_id', '=', clientId)
        .where('company_id', 'in', companyIds)
        .orderBy('created')
        .orderBy('id')
        .execute();
      for (const row of rows) {
        const list = byCompany.get(row.company_id) ?? [];
        list.push(row);
        byCompany.set(row.company_id, list);
      }
      return byCompany;
    },
  };
}

export type CompaniesStore = ReturnType<typeof createCompaniesStore>;

/** Stamps a sync's completion on the company (its `lastSync`). */
export async function stampCompanySync(trx: Kysely<Database>, clientId: string, companyId: string, completed: string): Promise<void> {
  await trx.updateTable('companies').set({ last_sync: completed }).where('client_id', '=', clientId).where('id', '=', companyId).execute();
}

/**
 * Queryable properties of Company. Plain fields read real columns where one exists; `tags.<key>` reads the
 * stored JSON; `dataConnections.<field>` matches companies with at least one such connection (the one
 * array Codat allows in queries).
 */
export function companiesResource(dialect: SqlDialect): QueryableResource {
  const columns: Record<string, PropertyDef> = {
    id: { type: 'string', exact: true, expr: sql`companies.id` },
    name: { type: 'string', expr: sql`companies.name` },
    created: { type: 'date', dateStyle: 'instant', expr: sql`companies.created` },
    lastSync: { type: 'date', dateStyle: 'instant', expr: sql`companies.last_sync` },
  };
  const connectionFields = connectionColumns('c');
  const fromSchema = resolverFromSchema(Company, 'doc', dialect, columns);
  return {
    typeName: 'Company',
    resolve(path) {
      if (path[0] === 'tags' && path.length === 2) return { type: 'string', expr: dialect.jsonText('doc', path) };
      if (path[0] === 'dataConnections' && path.length === 2) {
        if (!Object.hasOwn(connectionFields, path[1])) return undefined;
        const def = connectionFields[path[1]];
        return {
          ...def,
          sortable: false,
          compile: (op, value) =>
            sql`EXISTS (SELECT 1 FROM connections c WHERE c.company_id = companies.id AND ${compileComparison(path.join('.'), op, value, def, dialect)})`,
        };
      }
      // Served but not stored: the address depends on where the server is reached.
      if (path[0] === 'redirect') return undefined;
      return fromSchema(path);
    },
  };
}

/**
 * The `tags` filter of GET /companies: the query language over tag keys, with `=`, `!=` and `~` only.
 */
export function companyTagsResource(dialect: SqlDialect): QueryableResource {
  return {
    typeName: 'Company tags',
    resolve(path) {
      if (path.length !== 1) return undefined;
      const def: PropertyDef = { type: 'string', expr: dialect.jsonText('doc', ['tags', path[0]]) };
      return {
        ...def,
        compile(op, value) {
          if (op !== '=' && op !== '!=' && op !== '~')
            throw new QuerySemanticError(`Operator ${op} cannot be used in tags; use =, != or ~`);
          return compileComparison(path[0], op, value, def, dialect);
        },
      };
    },
  };
}

/** A page of the client's companies (those whose tags match the `tags` filter, when given). */
export function companiesPage(
  lists: ListContext,
  clientId: string,
  tags: { filter: string; resource: QueryableResource; dialect: SqlDialect } | undefined,
  resource: QueryableResource,
  page: PageRequest,
  countKey: string,
) {
  const tagged = tags && compileFilter(tags.filter, tags.resource, tags.dialect, 'tags');
  return listPage<CompanyRow>(
    lists,
    {
      from: sql`companies`,
      scope: tagged ? sql`companies.client_id = ${clientId} AND ${tagged}` : sql`companies.client_id = ${clientId}`,
      resource,
      select: sql`companies.id, companies.client_id, companies.doc, companies.last_sync`,
      tiebreak: [sql`companies.seq`],
      key: sql`companies.seq`,
      countKey,
    },
    page,
  );
}

/**
 * The company a Link address names, with its owner: the one read by company id alone, because the Link page is
 * reached without an API key (the address is the end user's capability) and learns the client from the company. The
 * emulator reads it the same way for a Link page's clock, and to compare the owner before a control touches a company.
 */
export function companyForLink(
  db: Kysely<Database>,
  companyId: string,
): Promise<{ id: string; client_id: string; name: string } | undefined> {
  return db.selectFrom('companies').select(['id', 'client_id', 'name']).where('id', '=', companyId).executeTakeFirst();
}

/** The company's stored document (JSON text), if it is the client's. */
export async function companyDoc(executor: Kysely<Database>, clientId: string, companyId: string): Promise<string | undefined> {
  const row = await executor
    .selectFrom('companies')
    .select('doc')
    .where('client_id', '=', clientId)
    .where('id', '=', companyId)
    .executeTakeFirst();
  return row?.doc;
}

/** The ids of the client's companies, oldest first. */
export async function companyIdsOf(executor: Kysely<Database>, clientId: string): Promise<string[]> {
  const rows = await executor.selectFrom('companies').select('id').where('client_id', '=', clientId).orderBy('seq').execute();
  return rows.map((r) => r.id);
}

/**
 * Deletes a company with all it owns (`deleteOwned`) in the caller's transaction, which holds the client's lock
 * (the emulator's reset deletes every company of a client in one).
 */
export async function deleteCompanyIn(
  trx: Kysely<Database>,
  clientId: string,
  companyId: string,
  deleteOwned: DeletionStep,
): Promise<void> {
  await deleteOwned(trx, clientId, { companyId });
  await trx.deleteFrom('companies').where('client_id', '=', clientId).where('id', '=', companyId).execute();
}
