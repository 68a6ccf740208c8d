import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Database } from '../storage/schema.js';
import { ApiError, notFound, validationError, type ValidationItem } from '../http/api-error.js';
import type { Client } from '../clients/clients.store.js';
import { lockClient } from '../clients/clients.store.js';
import type { ConnectionsService } from '../connections/connections.service.js';
import { findConnector } from '../connectors/registry.js';
import type { UploadSessionType } from '../connectors/connector.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { openOperation, releaseOperation } from '../syncs/sync-queue.js';
import { markReported } from '../syncs/read-reports.store.js';
import { createSyncsStore } from '../syncs/syncs.store.js';
import { asStored, schemaProblems } from '../push/write-validation.js';
import { saveUpload } from '../platform-data/uploads.store.js';
import {
  activeSessionId,
  appendPage,
  closeSession,
  configuredAccounts,
  hasConfiguration,
  idleSessionIds,
  insertConfiguration,
  insertSession,
  latestConfiguration,
  sessionOf,
  sessionPages,
  type UploadSessionRow,
} from '../platform-data/upload-sessions.store.js';
import { clockFor } from '../lib/clock.js';

export interface UploadSessionsDeps {
  db: Kysely<Database>;
  jobs: JobQueue;
  wakeJobs: () => void;
  connections: ConnectionsService;
  now?: () => Date;
}

/** The most a session holds (its pages' JSON text), about 32 MB: a sync reads a processed session whole. */
export const SESSION_MAX_CHARACTERS = 32 * 2 ** 20;
/** Codat: a session times out after 90 minutes without an upload. */
export const SESSION_TIMEOUT_MS = 90 * 60_000;
const VALIDATOR = 'BankStatementUpload';

export interface UploadConfiguration {
  source: 'codat';
  accountId: string;
  providerId?: string;
}

/**
 * The schema of one uploaded page: the record itself, or `{results: [...]}`. Made once per type, so its compiled
 * validator (cached by schema) is reused by every upload.
 */
const pageSchemas = new WeakMap<UploadSessionType, TSchema>();
function pageSchemaOf(type: UploadSessionType): TSchema {
  let schema = pageSchemas.get(type);
  if (!schema) pageSchemas.set(type, (schema = type.page === 'record' ? type.schema : Type.Object({ results: Type.Array(type.schema) })));
  return schema;
}

const invalid = (items: ValidationItem[]) => validationError('ValidationException: One or more validation errors occurred.', items);
const item = (itemId: string, message: string): ValidationItem => ({ itemId, message, validatorName: VALIDATOR });

/**
 * Codat's bank statement upload sessions (Lending API): a configuration per account, then a session per data
 * type whose pages of accounts or transactions (Codat's banking schema) are kept until the session ends. `Process`
 * keeps the records as one upload of the connection and syncs the data type, through the session's own pull
 * operation (its dataset id); `Cancel` drops them. Only platforms that declare upload sessions (`fstm`) take them.
 */
export function createUploadSessionsService(deps: UploadSessionsDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => clockFor({}).now());
  const syncs = createSyncsStore(db);

  async function uploadConnection(client: Client, companyId: string, connectionId: string) {
    const row = await deps.connections.owned(client, companyId, connectionId);
    const connector = findConnector(row.platform_key);
    if (!connector?.uploadSessions?.length) {
      throw invalid([
        item(
          'connectionId',
          `bank statement upload sessions are for connections to Bank statement files (platform key fstm); this connection is to ${connector?.info.name ?? row.platform_key}`,
        ),
      ]);
    }
    await expireIdle(client, connectionId);
    return { row, types: connector.uploadSessions };
  }

  /** The session; 404 when it is not this connection's. */
  async function sessionFound(trx: Kysely<Database>, client: Client, connectionId: string, datasetId: string) {
    const session = await sessionOf(trx, client.id, connectionId, datasetId);
    if (!session) throw notFound(`No upload session (dataset ${datasetId}) was found for connection ${connectionId}`);
    return session;
  }

  /**
   * Ends the connection's sessions that had no upload for 90 minutes (checked whenever sessions are used), in a
   * transaction of its own: the request that finds them expired is refused, but the expiry stands.
   */
  async function expireIdle(client: Client, connectionId: string): Promise<void> {
    const cutoff = new Date(now().getTime() - SESSION_TIMEOUT_MS).toISOString();
    const idle = await idleSessionIds(db, client.id, connectionId, cutoff);
    if (idle.length === 0) return;
    await db.transaction().execute(async (trx) => {
      await lockClient(trx, client.id, true);
      for (const id of idle) {
        const session = await sessionFound(trx, client, connectionId, id);
        if (session.status === 'Active')
          await endSession(trx, session, 'Expired', 'The upload session timed out: nothing was uploaded to it for 90 minutes.');
      }
    });
  }

  /** Ends a session without processing it: its pages go, and its pull operation is Cancelled. */
  async function endSession(trx: Kysely<Database>, session: UploadSessionRow, status: 'Cancelled' | 'Expired', description: string) {
    await closeSession(trx, session.client_id, session.id, status);
    const op = await syncs.operationOf(trx, session.client_id, session.id);
    if (!op) return;
    await syncs.update(trx, op, { status: 'Cancelled', statusDescription: description, completed: now().toISOString() });
    // Nothing was read: no `read.completed` reports it as a failed sync.
    await markReported(trx, session.client_id, [op.id]);
  }

  function checkPage(type: UploadSessionType, body: unknown, accounts: ReadonlySet<string>): Record<string, unknown>[] {
    const problems = schemaProblems(pageSchemaOf(type), body, VALIDATOR);
    if (problems.length > 0) throw invalid(problems);
    const records = type.page === 'record' ? [body as Record<string, unknown>] : (body as { results: Record<string, unknown>[] }).results;
    const unconfigured = records.flatMap((record, i) => {
      const account = String(record[type.accountField]);
      if (accounts.has(account)) return [];
      const at = type.page === 'record' ? type.accountField : `results.${i}.${type.accountField}`;
      return [
        item(
          at,
          `account ${account} has no upload configuration on this connection: set one with POST …/bankStatements/upload/configuration first`,
        ),
      ];
    });
    if (unconfigured.length > 0) throw invalid(unconfigured.slice(0, 20));
    return records.map((record) => asStored(type, record));
  }

  return {
    /** The stored configuration, as JSON text. */
    async getConfiguration(client: Client, companyId: string, connectionId: string): Promise<string> {
      await uploadConnection(client, companyId, connectionId);
      const doc = await latestConfiguration(db, client.id, connectionId);
      if (doc === undefined) throw notFound(`No bank statement upload configuration was set for connection ${connectionId}`);
      return doc;
    },

    async setConfiguration(
      client: Client,
      companyId: string,
      connectionId: string,
      body: Record<string, unknown>,
    ): Promise<UploadConfiguration> {
      const { row } = await uploadConnection(client, companyId, connectionId);
      const items: ValidationItem[] = [];
      for (const key of Object.keys(body))
        if (!['source', 'accountId', 'providerId'].includes(key))
          items.push(item(key, `${key} is not a field of the upload configuration`));
      if (body.source !== 'codat') items.push(item('source', "source must be codat (data in Codat's banking schema)"));
      if (typeof body.accountId !== 'string' || body.accountId.trim() === '')
        items.push(item('accountId', 'accountId is required: the id of the account the uploads are for'));
      if (body.providerId !== undefined && typeof body.providerId !== 'string')
        items.push(item('providerId', 'providerId must be a string'));
      if (items.length > 0) throw invalid(items);
      const config: UploadConfiguration = {
        source: 'codat',
        accountId: body.accountId as string,
        ...(body.providerId !== undefined ? { providerId: body.providerId as string } : {}),
      };
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, client.id, true);
        if (await hasConfiguration(trx, client.id, connectionId, config.accountId))
          throw invalid([item('accountId', `account ${config.accountId} already has an upload configuration on this connection`)]);
        await insertConfiguration(trx, client.id, {
          connection_id: connectionId,
          account_id: config.accountId,
          company_id: row.company_id,
          doc: JSON.stringify(config),
          created: now().toISOString(),
        });
      });
      return config;
    },

    /** Opens a session for a data type (one active per type) and answers its pull operation. */
    async start(client: Client, companyId: string, connectionId: string, body: Record<string, unknown> | null): Promise<string> {
      const { types } = await uploadConnection(client, companyId, connectionId);
      // Codat's request body is optional (its SDK's example sends none): transactions are what sessions are mostly for.
      const dataType = body?.dataType ?? 'banking-transactions';
      const type = types.find((t) => t.dataType === dataType);
      if (!type) throw invalid([item('dataType', `dataType must be one of: ${types.map((t) => t.dataType).join(', ')}`)]);
      const doc = await db.transaction().execute(async (trx) => {
        await lockClient(trx, client.id, true);
        const active = await activeSessionId(trx, client.id, connectionId, type.dataType);
        if (active !== undefined)
          throw invalid([
            item(
              'dataType',
              `an upload session for ${type.dataType} is already active on this connection (dataset ${active}): end it first`,
            ),
          ]);
        const op = await openOperation(trx, { clientId: client.id, companyId, connectionId, dataType: type.dataType }, now());
        const started = now().toISOString();
        await insertSession(trx, client.id, {
          id: op.id,
          company_id: companyId,
          connection_id: connectionId,
          data_type: type.dataType,
          status: 'Active',
          started,
          last_activity: started,
        });
        return op.doc;
      });
      return doc;
    },

    /** Keeps one page of the session's data type, checked against Codat's banking schema and the configured accounts. */
    async upload(client: Client, companyId: string, connectionId: string, datasetId: string, body: unknown): Promise<void> {
      const { types } = await uploadConnection(client, companyId, connectionId);
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, client.id, true);
        const session = await sessionFound(trx, client, connectionId, datasetId);
        if (session.status !== 'Active')
          throw invalid([item('datasetId', `the upload session ${datasetId} has ended (${session.status}); start a new one`)]);
        const type = types.find((t) => t.dataType === session.data_type) as UploadSessionType;
        const records = JSON.stringify(checkPage(type, body, await configuredAccounts(trx, client.id, connectionId)));
        // Processing the session reads all of it at once: it stays a size one sync reads with ease.
        if (Number(session.characters) + records.length > SESSION_MAX_CHARACTERS) {
          throw new ApiError(
            413,
            `PayloadTooLargeException: An upload session holds at most ${SESSION_MAX_CHARACTERS / 2 ** 20} Mi characters of records; process this one and start another for the rest.`,
          );
        }
        await appendPage(trx, client.id, session, records, now().toISOString());
      });
    },

    /** `Process`: the pages become one upload of the connection and the data type syncs; `Cancel`: they are dropped. */
    async end(
      client: Client,
      companyId: string,
      connectionId: string,
      datasetId: string,
      body: Record<string, unknown> | null,
    ): Promise<void> {
      await uploadConnection(client, companyId, connectionId);
      const status = body?.status;
      if (status !== 'Process' && status !== 'Cancel')
        throw invalid([item('status', 'status must be Process (ingest the uploaded data) or Cancel')]);
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, client.id, true);
        const session = await sessionFound(trx, client, connectionId, datasetId);
        if (session.status !== 'Active')
          throw invalid([item('datasetId', `the upload session ${datasetId} has ended (${session.status})`)]);
        if (status === 'Cancel') return endSession(trx, session, 'Cancelled', 'The upload session was cancelled.');
        // Each page is the JSON array of its checked records: joined as text, never parsed again.
        const pages = (await sessionPages(trx, client.id, datasetId)).map((page) => page.slice(1, -1)).filter((items) => items !== '');
        const parsed = `{"dataType":${JSON.stringify(session.data_type)},"records":[${pages.join(',')}]}`;
        await saveUpload(trx, {
          id: randomUUID(),
          kind: 'session',
          clientId: client.id,
          companyId,
          connectionId,
          fileName: `upload session ${datasetId}`,
          sourceType: 'Banking',
          contentType: 'application/json',
          content: new Uint8Array(0),
          uploaded: now().toISOString(),
          format: 'codat',
          parsed,
        });
        await closeSession(trx, client.id, datasetId, 'Processed');
        await releaseOperation(trx, deps.jobs, client.id, datasetId);
      });
      deps.wakeJobs();
    },
  };
}

export type UploadSessionsService = ReturnType<typeof createUploadSessionsService>;
