import { insertPush, pushByIdempotencyKey, pushDoc, pushOperationResource, pushOperationsPage } from './push.store.js';
import { connectionOfCompany } from '../connections/connections.store.js';
import { writtenState } from '../platform-data/platform-writes.store.js';
import { dataSetOf } from '../syncs/data-sets.store.js';
import { hasRecord } from '../records/record-reader.js';
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import { ApiError, notFound, unsupported, validationError, type ValidationItem } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import type { ListContext } from '../query/list-engine.js';
import type { Client } from '../clients/clients.store.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { WRITE_METHOD, type WriteModel, type WriteOperation } from '../connectors/connector.js';
import { isDataType, type DataType } from '../codat-model/data-types.js';
import type { CredentialsStore } from '../connections/credentials.store.js';
import { platformConnection, readContext } from './platform-writes.js';
import { findConnector } from '../connectors/registry.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { pushOperationDoc, withData } from './push-operation.js';
import { pushOption } from './push-option.js';
import { referencedIds, validateWrittenRecord } from './write-validation.js';
import { PUSH_JOB } from './push-job.js';
import { BankTransactionBatch, batchFieldOf, batchProblems, recordsOfBatch } from './bank-transaction-batch.js';
import { clockFor } from '../lib/clock.js';

export interface PushDeps {
  db: Kysely<Database>;
  dialect: SqlDialect;
  lists: ListContext;
  jobs: JobQueue;
  wakeJobs: () => void;
  companies: CompaniesService;
  /** Connections' platform credentials: a write a platform checks against its own data opens them (checkOnPlatform). */
  credentials: CredentialsStore;
  /** Platforms on loopback, private and link-local addresses allowed (`CONNECTORS_ALLOW_PRIVATE`). */
  allowPrivate?: boolean;
  /** How long the Sandbox platforms take to process a write, in ms. */
  sandboxDelayMs: number;
  /** The minute `timeoutInMinutes` counts in, in ms. */
  minuteMs: number;
  now?: () => Date;
}

export interface WriteRequest {
  companyId: string;
  connectionId: string;
  dataType: string;
  operation: WriteOperation;
  /** The record's id, from the path, for updates and deletes. */
  recordId?: string;
  /**
   * A batch of bank transactions to this bank account (`…/push/bankAccounts/{accountId}/bankTransactions`): the body
   * is Codat's batch (bank-transaction-batch.ts), not one record.
   */
  batchAccountId?: string;
  body: unknown;
  timeoutInMinutes?: number;
  allowSyncOnPushComplete?: boolean;
  forceUpdate?: boolean;
  idempotencyKey?: string;
  /** Method and path of the request: with the body they identify it for the Idempotency-Key check. */
  requestLine: string;
}

/** How long a write's request waits for the platform's own check (checkOnPlatform) before it is queued unchecked. */
const CHECK_TIMEOUT_MS = 5_000;

const VERB: Record<WriteOperation, string> = { Create: 'creating', Update: 'updating', Delete: 'deleting' };

/** Writes to a connection's platform (push operations): checked, recorded and queued here, processed by the push job. */
export function createPushService(deps: PushDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => clockFor({}).now());
  const resource = pushOperationResource(deps.dialect);

  async function connectionOf(client: Client, companyId: string, connectionId: string) {
    await deps.companies.owned(client, companyId);
    const row = await connectionOfCompany(db, client.id, companyId, connectionId);
    if (!row) throw notFound(`Data connection ${connectionId} not found`);
    return row;
  }

  /** The platform's write model of the type, or the error the caller gets when there is none. */
  function writeModelOf(platformKey: string, dataType: string): WriteModel {
    const connector = findConnector(platformKey);
    const model = connector && isDataType(dataType) ? connector.writes?.get(dataType) : undefined;
    if (!model) throw unsupported(dataType, [connector?.info.name ?? platformKey]);
    return model;
  }

  /** Ids the record names that the last sync of their type does not hold (and no write created since). */
  async function missingReferences(
    connection: { client_id: string; id: string },
    model: WriteModel,
    record: Record<string, unknown>,
  ): Promise<ValidationItem[]> {
    const items: ValidationItem[] = [];
    const checked = new Map<string, boolean>();
    for (const ref of referencedIds(model, record)) {
      const key = `${ref.dataType}\u0000${ref.id}`;
      if (!checked.has(key)) checked.set(key, await referenceExists(connection, ref.dataType, ref.id));
      if (!checked.get(key)) {
        items.push({
          itemId: ref.field,
          message: `${ref.field} refers to ${ref.dataType} record ${ref.id}, which does not exist`,
          validatorName: 'ReferenceValidator',
        });
      }
    }
    return items;
  }

  /**
   * What the platform's own data says of the write (WriteModel.checkOnPlatform). A platform that cannot be asked now,
   * or not within CHECK_TIMEOUT_MS, says nothing: the write is queued, and the connector checks again before sending
   * it, so that the platform refuses it then if it must. The request never fails for the platform's sake.
   */
  async function checkOnPlatform(
    connection: Parameters<typeof platformConnection>[2] & { platform_key: string },
    model: WriteModel,
    record: Record<string, unknown>,
    operation: WriteOperation,
  ): Promise<{ itemId: string; message: string }[]> {
    const connector = findConnector(connection.platform_key);
    if (!connector || !model.checkOnPlatform) return [];
    try {
      const platform = await platformConnection(db, connector, connection, deps);
      const ctx = await readContext(db, connector, platform, model.dataType as DataType);
      return await model.checkOnPlatform({ ...ctx, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) }, record, operation);
    } catch {
      return [];
    }
  }

  /**
   * Whether the record exists as far as the service knows: a write to the platform decides if there was one,
   * else the last sync of the type. True when the type was never synced: the platform checks it then.
   */
  async function referenceExists(connection: { client_id: string; id: string }, dataType: string, id: string): Promise<boolean> {
    const written = await writtenState(db, connection.client_id, connection.id, dataType, id);
    if (written !== undefined) return written === 'present';
    const version = (await dataSetOf(db, connection.client_id, connection.id, dataType))?.current_version;
    if (version === null || version === undefined) return true;
    return hasRecord(db, Number(version), id);
  }

  /** Problems with a batch of bank transactions: its shape, then each transaction as the platform's record, then the account. */
  async function batchProblemsOf(
    connection: { client_id: string; id: string; platform_key: string },
    model: WriteModel,
    accountId: string,
    body: unknown,
  ): Promise<ValidationItem[]> {
    const problems = batchProblems(accountId, body);
    if (problems.length > 0) return problems;
    const records = recordsOfBatch(accountId, body as BankTransactionBatch);
    records.forEach(({ record }, i) => {
      const found = [...validateWrittenRecord(model, record), ...(model.check?.(record, 'Create') ?? [])];
      problems.push(...found.map((p) => ({ validatorName: connection.platform_key, ...p, itemId: batchFieldOf(p.itemId ?? '', i) })));
    });
    if (problems.length > 0) return problems;
    return missingReferences(connection, model, records[0].record);
  }

  async function findByIdempotencyKey(clientId: string, key: string) {
    return pushByIdempotencyKey(db, clientId, key);
  }

  function replay(first: { doc: string; data: string | null; request_hash: string | null }, hash: string, key: string): string {
    if (first.request_hash !== hash) {
      throw validationError(`IdempotencyKeyReusedException: Idempotency-Key ${key} was already used for a different request.`, [
        {
          itemId: 'Idempotency-Key',
          message: 'Idempotency-Key must be unique per request; send a new key for a different write',
          validatorName: 'IdempotencyKey',
        },
      ]);
    }
    return withData(first.doc, first.data);
  }

  return {
    /** Checks and records a write; returns the Pending operation with the record as sent. */
    async write(client: Client, request: WriteRequest): Promise<string> {
      const connection = await connectionOf(client, request.companyId, request.connectionId);
      const data = request.operation === 'Delete' ? null : JSON.stringify(request.body);
      const hash = createHash('sha256')
        .update(`${request.requestLine}\n${data ?? ''}`)
        .digest('hex');
      if (request.idempotencyKey) {
        const first = await findByIdempotencyKey(client.id, request.idempotencyKey);
        if (first) return replay(first, hash, request.idempotencyKey);
      }

      const model = writeModelOf(connection.platform_key, request.dataType);
      // A platform that stores writes itself is sent one record per write; none takes batches yet.
      if (request.batchAccountId !== undefined && !model.keptByService)
        throw unsupported(request.dataType, [findConnector(connection.platform_key)?.info.name ?? connection.platform_key]);
      if (!model.operations.includes(request.operation)) {
        const allowed = model.operations
          .filter((op) => (op === 'Create') === (request.operation === 'Create'))
          .map((op) => WRITE_METHOD[op]);
        throw new ApiError(
          405,
          `MethodNotAllowedException: The platform does not support ${VERB[request.operation]} ${request.dataType}; it supports ${model.operations.map((op) => VERB[op]).join(', ')}.`,
          {
            headers: { Allow: allowed.join(', ') },
          },
        );
      }
      if (connection.status !== 'Linked') {
        throw new ApiError(
          400,
          `ConnectionNotLinkedException: Connection ${connection.id} is ${connection.status}; link it again before writing to it.`,
          { code: 'ConnectionNotLinked' },
        );
      }
      if (request.batchAccountId !== undefined) {
        const problems = await batchProblemsOf(connection, model, request.batchAccountId, request.body);
        if (problems.length > 0)
          throw validationError(`ValidationException: The ${request.dataType} batch is not valid; see validation.`, problems);
      } else if (request.operation !== 'Delete') {
        const problems = validateWrittenRecord(model, request.body);
        if (problems.length === 0 && model.check) {
          problems.push(
            ...model
              .check(request.body as Record<string, unknown>, request.operation)
              .map((p) => ({ ...p, validatorName: connection.platform_key })),
          );
        }
        if (problems.length === 0) problems.push(...(await missingReferences(connection, model, request.body as Record<string, unknown>)));
        if (problems.length === 0 && model.checkOnPlatform) {
          problems.push(
            ...(await checkOnPlatform(connection, model, request.body as Record<string, unknown>, request.operation)).map((p) => ({
              ...p,
              validatorName: connection.platform_key,
            })),
          );
        }
        if (problems.length > 0)
          throw validationError(`ValidationException: The ${request.dataType} record is not valid; see validation.`, problems);
      }

      const requested = now();
      const id = randomUUID();
      const timeout = request.timeoutInMinutes ?? null;
      const doc = pushOperationDoc({
        id,
        companyId: connection.company_id,
        connectionId: connection.id,
        dataType: request.dataType,
        operation: request.operation,
        status: 'Pending',
        requested: requested.toISOString(),
        timeoutInMinutes: timeout,
      });
      // The platform answers after its processing delay, or the operation times out first: the job runs at whichever comes first.
      // A live platform (one that stores writes itself) is sent the write at once.
      const processAt = requested.getTime() + (model.keptByService ? deps.sandboxDelayMs : 0);
      const runAt = timeout === null ? processAt : Math.min(processAt, requested.getTime() + timeout * deps.minuteMs);
      try {
        await db.transaction().execute(async (trx) => {
          await insertPush(trx, client.id, {
            id,
            company_id: connection.company_id,
            connection_id: connection.id,
            data_type: request.dataType,
            operation: request.operation,
            record_id: request.recordId ?? request.batchAccountId ?? null,
            status: 'Pending',
            requested: requested.toISOString(),
            completed: null,
            timeout_minutes: timeout,
            allow_sync: request.allowSyncOnPushComplete === false ? 0 : 1,
            force_update: request.forceUpdate ? 1 : 0,
            idempotency_key: request.idempotencyKey ?? null,
            request_hash: hash,
            data,
            doc,
          });
          await deps.jobs.enqueue(trx, { kind: PUSH_JOB, payload: { pushOperationId: id }, dueAt: new Date(runAt) });
        });
      } catch (err) {
        // Two requests with one Idempotency-Key raced: the other one's insert won, so answer with its operation.
        const first = request.idempotencyKey ? await findByIdempotencyKey(client.id, request.idempotencyKey) : undefined;
        if (first) return replay(first, hash, request.idempotencyKey as string);
        throw err;
      }
      deps.wakeJobs();
      return withData(doc, data);
    },

    async history(client: Client, companyId: string, page: PageRequest) {
      await deps.companies.owned(client, companyId);
      return pushOperationsPage(deps.lists, client.id, companyId, resource, page);
    },

    async operation(client: Client, companyId: string, key: string): Promise<string> {
      await deps.companies.owned(client, companyId);
      const doc = await pushDoc(db, client.id, companyId, key);
      if (doc === undefined)
        throw notFound(`PushOperationNotFoundException: No push operation with key ${key} was found for company ${companyId}`);
      return doc;
    },

    /** The fields the platform takes for a write of the type (PushOption). */
    async options(client: Client, companyId: string, connectionId: string, dataType: string): Promise<string> {
      const connection = await connectionOf(client, companyId, connectionId);
      const model = writeModelOf(connection.platform_key, dataType);
      const typeName = findConnector(connection.platform_key)?.dataTypes.get(model.dataType)?.typeName ?? dataType;
      return JSON.stringify(pushOption(model, typeName));
    },

    /** The fields of a batch of bank transactions to one account (`…/options/bankAccounts/{accountId}/bankTransactions`). */
    async batchOptions(client: Client, companyId: string, connectionId: string): Promise<string> {
      const connection = await connectionOf(client, companyId, connectionId);
      const model = writeModelOf(connection.platform_key, 'bankTransactions');
      if (!model.keptByService)
        throw unsupported('bankTransactions', [findConnector(connection.platform_key)?.info.name ?? connection.platform_key]);
      // The account is the path's, so the batch names no record of its own.
      return JSON.stringify(pushOption({ ...model, schema: BankTransactionBatch, references: [] }, 'Bank account transactions'));
    },
  };
}

export type PushService = ReturnType<typeof createPushService>;
