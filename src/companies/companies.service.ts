import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import { ApiError, notFound, validationError } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import type { ListContext } from '../query/list-engine.js';
import type { Client } from '../clients/clients.store.js';
import { getPlan } from '../clients/plans.js';
import { companiesPage, companiesResource, companyTagsResource, createCompaniesStore, type CompanyRow } from './companies.store.js';
import { connectionsOfCompany } from '../connections/connections.store.js';
import { sanitizeCompanyName } from './company-name.js';
import { serveConnection } from '../connections/connection-doc.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { DeletionStep } from '../storage/deletion.js';
import { recordCompanyEvent, type CompanyEventType } from './company-events.js';
import { companyReferenceReader } from './company-reference.js';
import type { CredentialsStore } from '../connections/credentials.store.js';
import { revocationsFor, runRevocations } from '../connections/revocation.js';
import { clockFor } from '../lib/clock.js';

export interface CompanyInput {
  name: string;
  description?: string;
  tags?: Record<string, string> | null;
}

/** The fields stored in a company's document; the rest of the Company is spliced in when served. */
interface StoredCompany {
  id: string;
  name: string;
  description?: string;
  created: string;
  products: string[];
  tags: Record<string, string>;
  referenceSubsidiaryCompanies: unknown[];
}

export interface CompaniesDeps {
  db: Kysely<Database>;
  dialect: SqlDialect;
  lists: ListContext;
  /** The server's public base address, e.g. `http://127.0.0.1:8080`. */
  publicUrl: () => string;
  /** Where background work is queued (deleting a company's records, `company.created` deliveries…). */
  jobs: JobQueue;
  /** Tells the job runner work is waiting. */
  wakeJobs?: () => void;
  /** Deletes what a company owns, in the deletion's transaction (the cascade app.ts lists: storage/deletion.ts). */
  deleteOwned: DeletionStep;
  /** Connections' platform credentials: read to revoke platform access when a company goes. */
  credentials?: CredentialsStore;
  /** Platforms on loopback, private and link-local addresses allowed (`CONNECTORS_ALLOW_PRIVATE`). */
  allowPrivate?: boolean;
  /** Runs in the transaction that creates a company (the emulator puts it on the clock its request named). */
  onCreated?: (trx: Kysely<Database>, clientId: string, companyId: string) => Promise<void>;
  now?: () => Date;
}

/** The hosted Link page of a company on this server. */
export function companyRedirectUrl(publicUrl: string, companyId: string): string {
  return `${publicUrl}/link/company/${companyId}`;
}

/** Companies of one client: create, read, list, update, delete. Returns served JSON text. */
export function createCompaniesService(deps: CompaniesDeps) {
  const store = createCompaniesStore(deps.db, deps.deleteOwned);
  const now = deps.now ?? (() => clockFor({}).now());
  const resource = companiesResource(deps.dialect);
  const tagsResource = companyTagsResource(deps.dialect);

  async function serve(clientId: string, rows: CompanyRow[]): Promise<string[]> {
    const connections = await store.connectionsOf(
      clientId,
      rows.map((r) => r.id),
    );
    const base = deps.publicUrl();
    return rows.map((row) => {
      const extra = [`"redirect":${JSON.stringify(companyRedirectUrl(base, row.id))}`];
      if (row.last_sync) extra.push(`"lastSync":${JSON.stringify(row.last_sync)}`);
      const served = (connections.get(row.id) ?? []).map((c) => serveConnection(base, c));
      extra.push(`"dataConnections":[${served.join(',')}]`);
      return `${row.doc.slice(0, -1)},${extra.join(',')}}`;
    });
  }

  /** The company if it belongs to this client: 404 when it does not exist, 403 when another client's. */
  async function owned(client: Client, companyId: string): Promise<CompanyRow> {
    const row = await store.find(companyId);
    if (!row) throw notFound(`No company was found with ID ${companyId}`);
    if (row.client_id !== client.id) {
      throw new ApiError(403, `Forbidden: the API key is not associated with company ${companyId}`);
    }
    return row;
  }

  function cleanName(name: string): string {
    const clean = sanitizeCompanyName(name);
    if (!clean) {
      throw validationError('ValidationException: The company name is invalid.', [
        { itemId: 'name', message: "name must contain letters, digits or the characters - ' , & @ . ? !", validatorName: 'CompanyName' },
      ]);
    }
    return clean;
  }

  function stored(doc: StoredCompany): string {
    return JSON.stringify(doc);
  }

  /** Records a company event in the store's transaction: the payload is Codat's CompanyDetails (no `dataConnections`). */
  function event(eventType: CompanyEventType, clientId: string, row: Pick<CompanyRow, 'id' | 'doc' | 'last_sync'>) {
    const jobs = deps.jobs;
    const details = {
      ...(JSON.parse(row.doc) as StoredCompany),
      redirect: companyRedirectUrl(deps.publicUrl(), row.id),
      ...(row.last_sync ? { lastSync: row.last_sync } : {}),
    };
    return async (trx: Kysely<Database>): Promise<void> => {
      await recordCompanyEvent(trx, jobs, eventType, clientId, details);
    };
  }

  return {
    owned,

    /** The company's reference for the events of its connections (src/companies/company-reference.ts). */
    reference: companyReferenceReader(deps.publicUrl),

    async list(client: Client, page: PageRequest, tags?: string): Promise<{ records: string[]; totalResults: number }> {
      const tagFilter = tags ? { filter: tags, resource: tagsResource, dialect: deps.dialect } : undefined;
      const countKey = `companies\u0000${client.id}\u0000${client.companiesVersion}\u0000${tags ?? ''}`;
      const result = await companiesPage(deps.lists, client.id, tagFilter, resource, page, countKey);
      return { records: await serve(client.id, result.rows), totalResults: result.totalResults };
    },

    async create(client: Client, input: CompanyInput): Promise<string> {
      const doc: StoredCompany = {
        id: randomUUID(),
        name: cleanName(input.name),
        ...(input.description !== undefined ? { description: input.description } : {}),
        created: now().toISOString(),
        products: [],
        tags: input.tags ?? {},
        referenceSubsidiaryCompanies: [],
      };
      const plan = getPlan(client.plan);
      const inserted = await store.insert(
        client.id,
        { id: doc.id, name: doc.name, created: doc.created, doc: stored(doc) },
        plan.maxCompanies,
        async (trx) => {
          await deps.onCreated?.(trx, client.id, doc.id);
          await event('company.created', client.id, { id: doc.id, doc: stored(doc), last_sync: null })(trx);
        },
      );
      if (!inserted) {
        throw new ApiError(402, 'CompanyValidationException: Company limit exceeded', {
          code: 'CompanyLimit',
          validation: [
            {
              itemId: 'Company',
              message: 'Company limit exceeded. Delete companies you no longer need and try again.',
              validatorName: 'CreateCompany',
            },
          ],
        });
      }
      deps.wakeJobs?.();
      const [served] = await serve(client.id, [{ id: doc.id, client_id: client.id, doc: stored(doc), last_sync: null }]);
      return served;
    },

    async get(client: Client, companyId: string): Promise<string> {
      const [served] = await serve(client.id, [await owned(client, companyId)]);
      return served;
    },

    /** PUT: name, description and tags are replaced; absent description and tags are cleared. */
    async replace(client: Client, companyId: string, input: CompanyInput): Promise<string> {
      const current = JSON.parse((await owned(client, companyId)).doc) as StoredCompany;
      const next: StoredCompany = { ...current, name: cleanName(input.name), tags: input.tags ?? {} };
      if (input.description === undefined) delete next.description;
      else next.description = input.description;
      return this.save(client, companyId, next);
    },

    /** PATCH: only the fields given change; `tags: null` or `{}` removes every tag. */
    async update(client: Client, companyId: string, input: Partial<CompanyInput>): Promise<string> {
      const current = JSON.parse((await owned(client, companyId)).doc) as StoredCompany;
      const next: StoredCompany = { ...current };
      if (input.name !== undefined) next.name = cleanName(input.name);
      if (input.description !== undefined) next.description = input.description;
      if (input.tags !== undefined) next.tags = input.tags ?? {};
      return this.save(client, companyId, next);
    },

    async save(client: Client, companyId: string, next: StoredCompany): Promise<string> {
      await store.update(client.id, companyId, { name: next.name, doc: stored(next) });
      return this.get(client, companyId);
    },

    async delete(client: Client, companyId: string): Promise<void> {
      const row = await owned(client, companyId);
      // Read before the credentials go with the company; revoked at the platforms once the deletion has committed.
      const connections = await connectionsOfCompany(deps.db, client.id, companyId);
      const revocations = await revocationsFor(deps.db, deps.credentials, client.id, connections, {
        allowPrivate: deps.allowPrivate ?? false,
      });
      await store.delete(client.id, companyId, event('company.deleted', client.id, row));
      await runRevocations(revocations);
      deps.wakeJobs?.();
    },
  };
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;
