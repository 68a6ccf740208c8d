import { pushById, settlePush, type PushRow } from './push.store.js';
import { connectionById, type ConnectionRow } from '../connections/connections.store.js';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ValidationItem } from '../http/api-error.js';
import { JobHandedBack, withHeartbeat, type JobContext, type JobHandler, type JobQueue } from '../jobs/job-queue.js';
import { lockClient } from '../clients/clients.store.js';
import { claimedIdsHeld, type PlatformWrite, type WriteOperation } from '../connectors/connector.js';
import { isDataType, type DataType } from '../codat-model/data-types.js';
import { findConnector } from '../connectors/registry.js';
import { queueSyncIfIdle } from '../syncs/sync-queue.js';
import { recordEvent } from '../webhooks/events.js';
import { writeEventPayload, writeEventType } from './write-events.js';
import { companyReference, companyReferenceReader } from '../companies/company-reference.js';
import { platformConnection, writeContext } from './platform-writes.js';
import { presentWritten, saveWritten } from '../platform-data/platform-writes.store.js';
import { isConnectorError, WriteRefused } from '../connectors/connector-error.js';
import { deauthorizeConnection } from '../connections/deauthorize.js';
import type { CredentialsStore } from '../connections/credentials.store.js';
import { pushOperationDoc, type PushStatus } from './push-operation.js';
import { asStored, namedReferences } from './write-validation.js';
import { batchFieldOf, isBatch, recordsOfBatch, type BankTransactionBatch, type BatchRecord } from './bank-transaction-batch.js';
import type { Metrics } from '../operations/metrics.js';
import { clockFor } from '../lib/clock.js';

export const PUSH_JOB = 'push-operation';

export interface PushJobOptions {
  db: Kysely<Database>;
  jobs: JobQueue;
  sandboxDelayMs: number;
  minuteMs: number;
  publicUrl: () => string;
  /** Connections' platform credentials, opened for the write that needs them. */
  credentials: CredentialsStore;
  /** Platforms on loopback, private and link-local addresses allowed (`CONNECTORS_ALLOW_PRIVATE`). */
  allowPrivate?: boolean;
  /** Counts each settled operation by outcome. */
  metrics: Pick<Metrics, 'pushSettled'>;
  now?: () => Date;
  /** Outcomes made to order before a write is processed (the emulator's fault rules); none without them. */
  faults?: PushFaults;
}

/** How a write ends instead of being processed, made to order. */
export type PushFault =
  { status: 'Failed'; errorMessage: string; errors?: ValidationItem[] } | { status: 'TimedOut'; errorMessage: string };

export interface PushFaults {
  /** The outcome the write of this data type meets, if one fires for it (each firing is counted once). */
  beforeWrite(target: {
    clientId: string;
    companyId: string;
    connectionId: string;
    dataType: string;
    pushOperationId: string;
  }): Promise<PushFault | undefined>;
}

/** How a write ended on the platform. */
type Outcome =
  | {
      status: 'Success';
      /** The record written; a batch's account. */
      recordId: string;
      /** What the platform now holds of each record written (null: deleted); none when it stores them itself. */
      written: { recordId: string; record: Record<string, unknown> | null }[];
      /** The records created or changed, for the operation's `changes` (the written ones, or the platform's). */
      changed: string[];
      /** Ids the write gives records it creates: still free when it settles, or it fails (see withoutClashes). */
      claimed: Claim[];
    }
  | { status: 'Failed' | 'TimedOut'; errorMessage: string; errors?: ValidationItem[] };

/** An id a write gives a record it creates, which the platform must not hold yet; `field` names it in the body. */
interface Claim {
  field: string;
  id: string;
}

/** The outcome of a write the platform refuses, for these problems. */
function refused(errors: ValidationItem[]): Outcome {
  return { status: 'Failed', errorMessage: `The platform refused the write: ${errors.map((e) => e.message).join('; ')}.`, errors };
}

/**
 * Processes a write on the Sandbox platform once its processing delay has passed: the platform checks the
 * write against what it holds now and stores it, or refuses it; past `timeoutInMinutes` the operation times out.
 * The outcome, the record the platform holds, the webhook event and the follow-up sync are one transaction.
 */
export function createPushJob(options: PushJobOptions): JobHandler {
  const { db, jobs } = options;
  const now = options.now ?? (() => clockFor({}).now());

  /**
   * `connection` is the operation's, read before processing (undefined once deleted). `signal` is aborted when the job
   * must stop (it was handed back): the platform is then not waited on any longer, and nothing more is sent to it.
   */
  async function process(op: PushRow, connection: ConnectionRow | undefined, signal: AbortSignal): Promise<Outcome> {
    const fault = await options.faults?.beforeWrite({
      pushOperationId: op.id,
      clientId: op.client_id,
      companyId: op.company_id,
      connectionId: op.connection_id,
      dataType: op.data_type,
    });
    // Nothing is sent to the platform: the write ends as the rule says.
    if (fault) return fault;
    const requested = Date.parse(op.requested);
    if (op.timeout_minutes !== null && requested + options.sandboxDelayMs > requested + op.timeout_minutes * options.minuteMs) {
      return {
        status: 'TimedOut',
        errorMessage: `The platform did not complete the write within ${op.timeout_minutes} minute(s) (timeoutInMinutes).`,
      };
    }
    if (!connection || connection.status !== 'Linked' || !connection.settings) {
      return {
        status: 'Failed',
        errorMessage: `Connection ${op.connection_id} is ${connection?.status ?? 'deleted'}; the platform could not be reached.`,
      };
    }
    const connector = findConnector(connection.platform_key);
    const model = connector && isDataType(op.data_type) ? connector.writes?.get(op.data_type) : undefined;
    if (!connector || !model)
      return { status: 'Failed', errorMessage: `Datatype ${op.data_type} not supported by platform(s) ${connection.platform_key}` };
    const platform = await platformConnection(db, connector, connection, options);
    const dataType = op.data_type as DataType;
    const body = op.data === null ? null : (JSON.parse(op.data) as Record<string, unknown>);
    // A batch creates each of its transactions; any other write is one record.
    const records: BatchRecord[] | null = isBatch(op)
      ? recordsOfBatch(op.record_id, body as BankTransactionBatch)
      : body && [{ id: op.operation === 'Create' ? null : op.record_id, record: body }];
    const write: PlatformWrite = {
      operation: op.operation as WriteOperation,
      recordId: op.record_id,
      record: body,
      key: op.id,
      forceUpdate: op.force_update === 1,
      records: records && records.map(({ id, record }) => ({ id, record: asStored(model, record) })),
      references: records ? namedReferences(model, records) : [],
      // Only a batch's creates bring ids of their own.
      claimed: (isBatch(op) ? (records ?? []) : []).flatMap((r, i) => (r.id === null ? [] : [{ field: batchFieldOf('id', i), id: r.id }])),
    };
    try {
      const ctx = await writeContext(db, connector, platform, dataType, signal);
      // The platform checks the write against what it holds and stores it (or, as the Sandbox does, hands back what
      // the service keeps for it); its answer is the outcome.
      const taken = await model.submit(ctx, write);
      return {
        status: 'Success',
        recordId: taken.recordId,
        written: taken.kept ?? [],
        changed: taken.changed ?? [taken.recordId],
        claimed: write.claimed,
      };
    } catch (err) {
      if (err instanceof WriteRefused) return refused([...err.problems]);
      // Stopped (handed back): whatever the platform answered, the write is left Pending for the next run.
      if (!isConnectorError(err) || signal.aborted) throw err;
      // Access revoked: the connection is Deauthorized (and the client told), as when a sync finds out.
      if (err.kind === 'unauthorized') {
        await deauthorizeConnection(
          db,
          jobs,
          {
            clientId: connection.client_id,
            connectionId: connection.id,
            message: err.message,
            now: now(),
          },
          { publicUrl: options.publicUrl(), companyReference: companyReferenceReader(options.publicUrl) },
        );
      }
      // A platform that did not answer (or answered 5xx to every attempt) may have made the write all the same; one
      // still limiting requests after the waits a write allows itself did not take it.
      const errorMessage =
        err.kind === 'unavailable'
          ? `The platform did not complete the write: ${err.message}. It may have been made: read ${op.data_type} before sending it again.`
          : err.kind === 'rate-limited'
            ? `The platform did not take the write: it is limiting requests (HTTP 429); send it again in ${Math.ceil((err.retryAfterMs ?? 60_000) / 1000)} s.`
            : `The platform refused the write: ${err.message}`;
      return { status: 'Failed', errorMessage, errors: [{ itemId: 'body', message: err.message, validatorName: connector.info.name }] };
    }
  }

  /**
   * The outcome, unless an id the write claims was taken by another write that settled since it was checked (two
   * batches naming one id, run side by side): then it fails, and neither replaces the other's record. Runs in the
   * settling transaction, after the client's lock.
   */
  async function withoutClashes(
    trx: Kysely<Database>,
    op: PushRow,
    platform: string | undefined,
    outcome: Outcome & { status: 'Success' },
  ): Promise<Outcome> {
    if (outcome.claimed.length === 0) return outcome;
    const ids = outcome.claimed.map((c) => c.id);
    const held = await presentWritten(trx, op.client_id, op.connection_id, op.data_type, ids);
    const validator = findConnector(platform ?? '')?.info.name ?? String(platform);
    const errors = claimedIdsHeld(op.data_type, outcome.claimed, (id) => held.has(id), validator);
    return errors.length === 0 ? outcome : refused(errors);
  }

  /**
   * Settles the operation, unless another worker already did; everything the outcome causes commits with it.
   * `platform` is the connection's platform key, for the metrics.
   */
  async function settle(op: PushRow, platform: string | undefined, decided: Outcome): Promise<void> {
    const completed = now().toISOString();
    let status: PushStatus = decided.status;
    let recordId = decided.status === 'Success' ? decided.recordId : op.record_id;
    const settled = await db.transaction().execute(async (trx) => {
      // The client row first, as every transaction touching a client's companies does (one lock order). It also
      // orders this write against a sync noting which writes it has read, and against another batch settling.
      await lockClient(trx, op.client_id);
      const outcome = decided.status === 'Success' ? await withoutClashes(trx, op, platform, decided) : decided;
      status = outcome.status;
      recordId = outcome.status === 'Success' ? outcome.recordId : op.record_id;
      const doc = pushOperationDoc({
        id: op.id,
        companyId: op.company_id,
        connectionId: op.connection_id,
        dataType: op.data_type,
        operation: op.operation as WriteOperation,
        status,
        requested: op.requested,
        completed,
        timeoutInMinutes: op.timeout_minutes,
        recordId,
        changed: outcome.status === 'Success' ? outcome.changed : [],
        errorMessage: outcome.status === 'Success' ? null : outcome.errorMessage,
        errors: outcome.status === 'Success' ? [] : outcome.errors,
      });
      if (!(await settlePush(trx, op.client_id, op.id, { status, completed, recordId, doc }))) return false;
      if (outcome.status === 'Success') {
        await saveWritten(trx, op.client_id, {
          companyId: op.company_id,
          connectionId: op.connection_id,
          dataType: op.data_type,
          records: outcome.written.map(({ recordId, record }) => ({
            recordId,
            record: record && { ...record, sourceModifiedDate: completed },
          })),
          at: completed,
        });
        if (op.allow_sync === 1) {
          await queueSyncIfIdle(
            trx,
            jobs,
            { clientId: op.client_id, companyId: op.company_id, connectionId: op.connection_id, dataType: op.data_type },
            now(),
          );
        }
      }
      const company = await companyReference(trx, op.client_id, op.company_id, options.publicUrl());
      await recordEvent(trx, jobs, {
        clientId: op.client_id,
        companyId: op.company_id,
        companyTags: company.tags,
        eventType: writeEventType(op.data_type, outcome.status === 'Success'),
        payload: writeEventPayload(op, { referenceCompany: company.reference, completed, status, recordId }),
      });
      return true;
    });
    // Counted once, by the run that settled it.
    if (settled) options.metrics.pushSettled({ platform: platform ?? 'unknown', dataType: op.data_type, outcome: status });
  }

  async function pending(id: string): Promise<PushRow | undefined> {
    const op = await pushById(db, id);
    return op && op.status === 'Pending' ? op : undefined;
  }

  return {
    async run(payload: { pushOperationId: string }, context: JobContext) {
      const op = await pending(payload.pushOperationId);
      if (!op) return;
      let platform: string | undefined;
      let outcome: Outcome;
      try {
        const connection = await connectionById(db, op.client_id, op.connection_id);
        platform = connection?.platform_key;
        // A platform may keep the write waiting (a Retry-After of up to a minute): the job keeps its lease meanwhile,
        // so that no other worker takes the job and sends the write too. Handed back (this process shuts down, or
        // lost the job), it stops waiting and sends nothing more; the operation stays Pending and runs again.
        outcome = await withHeartbeat(context, (signal) => process(op, connection, signal));
      } catch (err) {
        if (err instanceof JobHandedBack) throw err;
        await settle(op, platform, {
          status: 'Failed',
          errorMessage: 'The write failed unexpectedly while the platform processed it; send it again.',
        });
        throw err;
      }
      await settle(op, platform, outcome);
    },
    // Settling is one transaction, so a run interrupted before it left the operation Pending: the job simply
    // runs again. After too many interruptions, the operation fails rather than staying Pending for ever.
    async onGiveUp(payload: { pushOperationId: string }) {
      const op = await pending(payload.pushOperationId);
      if (op)
        await settle(op, (await connectionById(db, op.client_id, op.connection_id))?.platform_key, {
          status: 'Failed',
          errorMessage: 'The write was interrupted too often (the processes running it stopped); send it again.',
        });
    },
  };
}
