import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { DeletionStep } from '../storage/deletion.js';
import type { ConnectionRow } from './connections.store.js';
import type { SqlDialect } from '../storage/dialect.js';
import { ApiError, notFound, validationError } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import type { ListContext } from '../query/list-engine.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import type { Client } from '../clients/clients.store.js';
import { lockClient } from '../clients/clients.store.js';
import { findConnector, isOffered } from '../connectors/registry.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { Connection } from './connection.schema.js';
import { accountingConnectionOf, connectionColumns, connectionOfCompany, connectionsPage, insertConnection } from './connections.store.js';
import { connectionDoc, serveConnection } from './connection-doc.js';
import { isConnectorError } from '../connectors/connector-error.js';
import type { LinkResult } from '../connectors/connector.js';
import type { CredentialsStore } from './credentials.store.js';
import { revocationsFor, runRevocations } from './revocation.js';
import { writeConnectionStatus } from './connection-status.js';
import { recordConnectionEvent, type ConnectionEventType } from './connection-events.js';
import type { CompanyReferenceReader } from '../webhooks/events.js';
import { clockFor } from '../lib/clock.js';

/** What linking a connection starts: its first syncs, queued in the transaction that links it. */
export type QueueFirstSyncs = (
  trx: Kysely<Database>,
  connection: { id: string; client_id: string; company_id: string; platform_key: string },
) => Promise<void>;

/** What connections need of their company (the companies service is one): connections import nothing of companies. */
export interface CompanyLookup {
  /** The company, if the client owns it; 403 or 404 otherwise. */
  owned(client: Client, companyId: string): Promise<unknown>;
  /** The company's reference for events about its connections. */
  reference: CompanyReferenceReader;
}

export interface ConnectionsDeps {
  db: Kysely<Database>;
  dialect: SqlDialect;
  lists: ListContext;
  jobs: JobQueue;
  /** Tells the job runner work is waiting. */
  wakeJobs: () => void;
  companies: CompanyLookup;
  /** Queues a newly linked connection's first syncs, in the link's transaction (src/syncs/first-link.ts). */
  queueFirstSyncs: QueueFirstSyncs;
  /** Deletes what a connection owns, its own row last (the cascade app.ts lists: storage/deletion.ts). */
  deleteOwned: DeletionStep;
  publicUrl: () => string;
  /** Connections' platform credentials, sealed at rest (required for platforms with credentials). */
  credentials?: CredentialsStore;
  /** Platforms on loopback, private and link-local addresses allowed (`CONNECTORS_ALLOW_PRIVATE`). */
  allowPrivate?: boolean;
  now?: () => Date;
  /** The emulator's scenarios on the Sandboxes' authorization (`EMULATOR=true` only; docs/emulator.md). */
  scenarios?: AuthorizationScenarios;
}

/**
 * How a Sandbox connection behaves after it is authorised, to test a client's handling of trouble: kept by the
 * emulator, which alone gives connections this.
 */
export interface AuthorizationScenarios {
  names: readonly string[];
  /** The one that leaves the connection unlinked: the end user never completes the authorization. */
  neverCompletes: string;
  /** Records the connection's scenario (none: forgets the one it had), in the transaction that links it. */
  linked(
    trx: Kysely<Database>,
    connection: { clientId: string; companyId: string; connectionId: string },
    scenario: string | undefined,
  ): Promise<void>;
}

/** A company's connections to platforms: create, list, link (authorise), unlink, delete. Returns served JSON. */
export function createConnectionsService(deps: ConnectionsDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => clockFor({}).now());
  const resource = {
    typeName: 'Connection',
    resolve: resolverFromSchema(Connection, 'doc', deps.dialect, connectionColumns('connections')),
  };
  const serve = (row: { id: string; company_id: string; doc: string }) => serveConnection(deps.publicUrl(), row);
  /** Webhook event of a connection change, inside the change's transaction. */
  const event = (
    trx: Kysely<Database>,
    eventType: ConnectionEventType,
    row: { id: string; client_id: string; company_id: string; doc: string },
  ) => recordConnectionEvent(trx, deps.jobs, eventType, row, { publicUrl: deps.publicUrl(), companyReference: deps.companies.reference });

  async function owned(client: Client, companyId: string, connectionId: string): Promise<ConnectionRow> {
    await deps.companies.owned(client, companyId);
    const row = await connectionOfCompany(db, client.id, companyId, connectionId);
    if (!row) throw notFound(`Data connection ${connectionId} not found`);
    return row;
  }

  /** Writes a new status (and settings) and re-renders the document (see connection-status.ts). */
  const setStatus = (trx: Kysely<Database>, row: ConnectionRow, status: string, settings?: string | null) =>
    writeConnectionStatus(trx, row, status, { settings });

  return {
    owned,

    async list(client: Client, companyId: string, page: PageRequest) {
      await deps.companies.owned(client, companyId);
      const countKey = `connections\u0000${companyId}\u0000${client.companiesVersion}`;
      const result = await connectionsPage(deps.lists, client.id, companyId, resource, page, countKey);
      return { records: result.rows.map(serve), totalResults: result.totalResults };
    },

    /** A new PendingAuth connection. A company holds at most one accounting connection. */
    async create(client: Client, companyId: string, platformKey: string | undefined): Promise<string> {
      await deps.companies.owned(client, companyId);
      if (!platformKey) {
        throw validationError('ValidationException: One or more validation errors occurred.', [
          { itemId: 'platformKey', message: 'platformKey is required (see GET /integrations)', validatorName: 'CreateConnection' },
        ]);
      }
      const offered = findConnector(platformKey);
      const platform = offered && isOffered(offered) ? offered.info : undefined;
      if (!platform) {
        throw validationError('ValidationException: One or more validation errors occurred.', [
          {
            itemId: 'platformKey',
            message: `No integration has the key ${platformKey} (see GET /integrations)`,
            validatorName: 'CreateConnection',
          },
        ]);
      }
      const id = randomUUID();
      const created = now().toISOString();
      // A platform whose data is uploads has nothing to sign in to: Linked at once (syncs start with the first upload).
      const linkedAtOnce = findConnector(platform.key)?.authorization?.kind === 'files';
      const status = linkedAtOnce ? 'Linked' : 'PendingAuth';
      const doc = connectionDoc({ id, companyId, platform, status, created, lastSync: null });
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, client.id, true);
        if (platform.sourceType === 'Accounting') {
          const existing = await accountingConnectionOf(trx, client.id, companyId);
          if (existing) {
            throw new ApiError(
              409,
              `ConnectionLimitException: Company ${companyId} already has an accounting connection (${existing.id}); delete it before adding another.`,
              { code: 'ConnectionLimit' },
            );
          }
        }
        await insertConnection(trx, client.id, {
          id,
          company_id: companyId,
          platform_key: platform.key,
          source_type: platform.sourceType,
          status,
          created,
          doc,
          last_sync: null,
          settings: linkedAtOnce ? '{}' : null,
        });
        await event(trx, 'connection.created', { id, client_id: client.id, company_id: companyId, doc });
        if (linkedAtOnce) await event(trx, 'connection.connected', { id, client_id: client.id, company_id: companyId, doc });
      });
      deps.wakeJobs();
      return serve({ id, company_id: companyId, doc });
    },

    async get(client: Client, companyId: string, connectionId: string): Promise<string> {
      return serve(await owned(client, companyId, connectionId));
    },

    /** Deletes the connection and its data sets and syncs. */
    async delete(client: Client, companyId: string, connectionId: string): Promise<void> {
      const row = await owned(client, companyId, connectionId);
      // Read before the credentials go with the connection; run once the deletion has committed.
      const revocations = await revocationsFor(db, deps.credentials, client.id, [row], { allowPrivate: deps.allowPrivate ?? false });
      const scope = { companyId: row.company_id, connectionId: row.id };
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, client.id, true);
        await deps.deleteOwned(trx, client.id, scope);
        await event(trx, 'connection.deleted', row);
      });
      await runRevocations(revocations);
      deps.wakeJobs();
    },

    /** PATCH: only `{"status": "Unlinked"}` on a Linked connection. Cached data stays readable. */
    async unlink(client: Client, companyId: string, connectionId: string, status: string | undefined): Promise<string> {
      const row = await owned(client, companyId, connectionId);
      if (status !== 'Unlinked') {
        throw validationError('ValidationException: One or more validation errors occurred.', [
          { itemId: 'status', message: 'status must be Unlinked', validatorName: 'UnlinkConnection' },
        ]);
      }
      if (row.status !== 'Linked') {
        throw validationError(
          `ValidationException: Only a Linked connection can be unlinked; connection ${connectionId} is ${row.status}.`,
          [
            {
              itemId: 'status',
              message: `Only a Linked connection can be unlinked; this one is ${row.status}`,
              validatorName: 'UnlinkConnection',
            },
          ],
        );
      }
      const unlinked = await db.transaction().execute(async (trx) => {
        const next = await setStatus(trx, row, 'Unlinked');
        await event(trx, 'connection.disconnected', next);
        return next;
      });
      deps.wakeJobs();
      return serve(unlinked);
    },

    /**
     * Links the connection without a browser (also what the hosted Link page calls). For the Sandbox the body
     * picks the data set. Queues the first-link syncs. Returns the connection and whether it was linked already.
     */
    async authorize(
      client: Client,
      companyId: string,
      connectionId: string,
      body: Record<string, unknown>,
    ): Promise<{ served: string; alreadyLinked: boolean; pending?: boolean }> {
      const row = await owned(client, companyId, connectionId);
      const connector = findConnector(row.platform_key);
      const { scenario, rest } = scenarioOf(body, connector?.sandbox === true);
      if (row.status === 'Linked') return { served: serve(row), alreadyLinked: true };
      // Nothing to sign in to: linking again makes the uploads readable again.
      if (connector?.authorization?.kind === 'files') return { served: await linkRow(row, '{}', null), alreadyLinked: false };
      if (!connector?.link) {
        throw validationError(
          'ValidationException: This platform is linked through its linkUrl in a browser, not with PUT .../authorization.',
          [
            {
              itemId: 'body',
              message: `${connector?.info.name ?? row.platform_key} connections are authorised on the platform's own consent page: open the connection's linkUrl`,
              validatorName: 'PlatformAuthorization',
            },
          ],
        );
      }
      // The end user never completes it: the connection stays as it is (PendingAuth for a new one).
      if (scenario !== undefined && scenario === deps.scenarios?.neverCompletes)
        return { served: serve(row), alreadyLinked: false, pending: true };
      let result: LinkResult;
      try {
        const current = row.settings ? (JSON.parse(row.settings) as Record<string, unknown>) : null;
        result = await connector.link(rest, {
          connectionId: row.id,
          companyId: row.company_id,
          current,
          now: now(),
          allowPrivate: deps.allowPrivate ?? false,
        });
      } catch (err) {
        if (!isConnectorError(err)) throw err;
        // The platform refused the attempt: the connection stays as it was, and the client hears of it.
        await recordFailed(row);
        throw validationError(`ValidationException: The platform could not be linked: ${err.message}.`, [
          { itemId: err.field ?? 'url', message: err.message, validatorName: 'PlatformAuthorization' },
        ]);
      }
      return { served: await linkRow(row, JSON.stringify(result.settings), result.credentials, scenario), alreadyLinked: false };
    },

    /**
     * Links the connection with what a platform's OAuth2 exchange returned (`src/link/oauth.ts`). Returns false
     * when it was linked already (a repeated callback changes nothing).
     */
    async linkWithResult(client: Client, companyId: string, connectionId: string, result: LinkResult): Promise<boolean> {
      const row = await owned(client, companyId, connectionId);
      if (row.status === 'Linked') return false;
      await linkRow(row, JSON.stringify(result.settings), result.credentials);
      return true;
    },

    /** Records that the platform refused a link attempt: `connection.failed`; the connection stays as it was. */
    async linkFailed(client: Client, companyId: string, connectionId: string): Promise<void> {
      await recordFailed(await owned(client, companyId, connectionId));
    },
  };

  /**
   * The `scenario` of a Sandbox's authorization, checked, and the body without it (the connector's own). A scenario is
   * an emulator feature: without `EMULATOR=true`, or on another platform, it is refused.
   */
  function scenarioOf(body: Record<string, unknown>, sandbox: boolean): { scenario?: string; rest: Record<string, unknown> } {
    if (body.scenario === undefined) return { rest: body };
    const { scenario, ...rest } = body;
    const refuse = (message: string) =>
      validationError(`ValidationException: ${message}.`, [{ itemId: 'scenario', message, validatorName: 'SandboxAuthorization' }]);
    if (!deps.scenarios) throw refuse('scenario is an emulator feature: start Ledgerport with EMULATOR=true to use it');
    if (!sandbox) throw refuse('scenario applies to the Sandboxes only');
    if (typeof scenario !== 'string' || !deps.scenarios.names.includes(scenario))
      throw refuse(`scenario must be one of: ${deps.scenarios.names.join(', ')}`);
    return { scenario, rest };
  }

  async function recordFailed(row: ConnectionRow): Promise<void> {
    await db.transaction().execute((trx) => event(trx, 'connection.failed', row));
    deps.wakeJobs();
  }

  /** Marks the connection Linked with its settings and (sealed) credentials, queues its first syncs, tells the client. */
  async function linkRow(
    row: ConnectionRow,
    settings: string | null,
    credentials: Record<string, unknown> | null,
    scenario?: string,
  ): Promise<string> {
    const relinked = row.status === 'Deauthorized';
    const linked = await db.transaction().execute(async (trx) => {
      const next = await setStatus(trx, row, 'Linked', settings);
      if (credentials) {
        if (!deps.credentials) throw new Error('no credentials store: connections to this platform cannot be linked');
        await deps.credentials.save(
          trx,
          row.client_id,
          { companyId: row.company_id, connectionId: row.id },
          credentials,
          now().toISOString(),
        );
      } else {
        await deps.credentials?.delete(trx, row.client_id, { companyId: row.company_id, connectionId: row.id });
      }
      // A link made without a scenario forgets the one an earlier link had.
      await deps.scenarios?.linked(trx, { clientId: row.client_id, companyId: row.company_id, connectionId: row.id }, scenario);
      await deps.queueFirstSyncs(trx, next);
      await event(trx, relinked ? 'connection.reconnected' : 'connection.connected', next);
      return next;
    });
    deps.wakeJobs();
    return serve(linked);
  }
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;
