import type { Logger } from 'pino';
import { createHash, randomUUID } from 'node:crypto';
import type { Store } from '../storage/database.js';
import { VERSION } from '../version.js';
import { JobHandedBack, withHeartbeat, type JobHandler, type JobContext } from '../jobs/job-queue.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { ACTIVE_STATUSES, type DatasetStatus } from './pull-operation.js';
import { lockClient } from '../clients/clients.store.js';
import { findConnector, findPlatform } from '../connectors/registry.js';
import type { WrittenRecord } from '../connectors/connector.js';
import type { DataType } from '../codat-model/data-types.js';
import { connectionDoc } from '../connections/connection-doc.js';
import { completeDataSet, dataSetOf } from './data-sets.store.js';
import { createSyncsStore, releaseRunner, setRecordsModified, type PullOperationRow } from './syncs.store.js';
import { connectionById, stampConnectionSync } from '../connections/connections.store.js';
import { stampCompanySync } from '../companies/companies.store.js';
import type { VersionWriters } from './version-writers.js';
import type { VersionResult, VersionTask } from './version-task.js';
import { DELETE_VERSION_JOB, SYNC_JOB, queueSyncIfIdle, releaseWaiting } from './sync-queue.js';
import { reportReadIfIdle } from './read-completed.js';
import { keptSince, markKept, type KeptMark } from '../platform-data/kept-data.js';
import { deleteVersion } from '../records/version-deletion.js';
import { completeVersion, openVersion, versionInfo } from '../records/record-versions.js';
import { saveVersionDigest } from '../records/version-digests.js';
import { TAKEN_OVER } from '../records/record-sink.js';
import { isConnectorError } from '../connectors/connector-error.js';
import { deauthorizeConnection } from '../connections/deauthorize.js';
import { companyReferenceReader } from '../companies/company-reference.js';
import type { CredentialsStore } from '../connections/credentials.store.js';
import { oauthTokenSource } from '../connections/oauth-tokens.js';
import type { Metrics } from '../operations/metrics.js';
import { clockFor } from '../lib/clock.js';

/**
 * What reports keep with a version they read (its digests, records/version-digests.ts), made once it is written:
 * handed in by the composition root (reports/ is on this floor).
 */
export interface VersionDigests {
  /** The digests of a written, not yet complete version of the data type, of `size` records (none for a type no report digests). */
  of(version: number, dataType: string, size: number): Promise<{ kind: string; bytes: Uint8Array }[]>;
}

export interface SyncJobOptions {
  store: Store;
  jobs: JobQueue;
  /** Where versions are written (writing threads, or this one). */
  writers: VersionWriters;
  /** What reports keep with each version written (none: nothing). */
  digests?: VersionDigests;
  /**
   * Told of each sync that completes, once readers see its version (reports that work ahead, such as data
   * integrity's matching: handed in by the composition root). It must not throw; it is not awaited.
   */
  afterComplete?: (sync: { clientId: string; companyId: string; dataType: string }) => void;
  /**
   * How long a superseded version stays before its records are deleted, in ms: a reader that looked up the
   * old version just before the switch can still finish its page.
   */
  retainSupersededMs?: number;
  /** The server's public address, for links in webhook events. */
  publicUrl: () => string;
  /** Connections' platform credentials, opened for the sync that needs them. */
  credentials: CredentialsStore;
  /** Platforms on loopback, private and link-local addresses allowed (`CONNECTORS_ALLOW_PRIVATE`). */
  allowPrivate?: boolean;
  /** Counts each sync that ends, with how long it took and what it wrote. */
  metrics: Pick<Metrics, 'syncEnded'>;
  /** Where each sync's end is logged: completion at info, failure at warn. */
  log?: Pick<Logger, 'info' | 'warn'>;
  now?: () => Date;
  /** Failures made to order before a sync reads (the emulator's fault rules); none in a service without them. */
  faults?: SyncFaults;
}

/**
 * What a sync meets instead of reading, made to order: the connection deauthorized, the sync's own error, the
 * platform's 429 (the sync goes back to Queued and reads after `retryAfterMs`), or a wait (it goes back to Queued and
 * reads at `until`, business time: a slow platform).
 */
export type SyncFault =
  | { kind: 'deauthorize' | 'FetchError' | 'AuthError'; message: string }
  | { kind: 'rateLimited'; retryAfterMs: number }
  | { kind: 'wait'; until: Date };

export interface SyncFaults {
  /** The fault the sync of this data type meets, if one fires for it (each firing is counted once). */
  beforeRead(target: {
    clientId: string;
    companyId: string;
    connectionId: string;
    dataType: string;
    pullOperationId: string;
  }): Promise<SyncFault | undefined>;
}

/**
 * Runs one pull operation: streams the platform's records into a new version of the data set, then, in one
 * transaction, points the data set at it and completes the operation. Until then readers see the previous
 * complete version; on failure they keep it and the operation ends in an error status.
 */
export function createSyncJob(options: SyncJobOptions): { sync: JobHandler; deleteVersion: JobHandler } {
  const { store: dataStore, jobs } = options;
  const { db } = dataStore;
  const store = createSyncsStore(db);
  const now = options.now ?? (() => clockFor({}).now());
  const retain = options.retainSupersededMs ?? 60_000;

  /**
   * Counts and logs an ended sync: its time from being requested to its end (as the operation's `requested` and
   * `completed` show it, queue wait and earlier interrupted runs included), labelled with the connection's platform.
   * The log line carries ids, never the connection's settings or credentials; a failure's message is the one the
   * operation shows its client.
   */
  async function ended(row: PullOperationRow, outcome: DatasetStatus, completed: string, records: number, error?: string): Promise<void> {
    const connection = await connectionById(db, row.client_id, row.connection_id).catch(() => undefined);
    const durationMs = Math.max(0, Date.parse(completed) - Date.parse(row.requested));
    const platform = connection?.platform_key ?? 'unknown';
    options.metrics.syncEnded({ platform, dataType: row.data_type, outcome }, durationMs / 1000, records);
    const fields = {
      pullOperationId: row.id,
      companyId: row.company_id,
      connectionId: row.connection_id,
      platform,
      dataType: row.data_type,
      status: outcome,
      durationMs,
    };
    if (outcome === 'Complete') options.log?.info({ ...fields, records }, 'sync complete');
    else options.log?.warn({ ...fields, error }, 'sync failed');
  }

  /** Ends the operation in an error; with `runner`, only while that run still holds it. */
  async function fail(
    row: PullOperationRow,
    status: 'FetchError' | 'InternalError' | 'AuthError',
    message: string,
    runner?: string,
  ): Promise<void> {
    const completed = now().toISOString();
    await db.transaction().execute(async (trx) => {
      await lockClient(trx, row.client_id);
      await store.update(trx, row, { status, errorMessage: message, completed }, runner);
      // Whatever the failed sync wrote is invisible; remove it.
      await jobs.enqueue(trx, { kind: DELETE_VERSION_JOB, payload: { version: Number(row.seq) } });
      await releaseWaiting(trx, jobs, row.client_id, row.connection_id, row.data_type);
      await reportReadIfIdle(trx, jobs, { clientId: row.client_id, companyId: row.company_id, publicUrl: options.publicUrl() });
    });
    await ended(row, status, completed, 0, message);
  }

  /**
   * Hands a sync back: Queued again (its progress kept), to run again after `afterMs` of real time (a platform's
   * Retry-After) or at `dueAt` of business time (a slow platform, on the company's clock).
   */
  async function requeue(row: PullOperationRow, runner: string, when: { afterMs: number } | { dueAt: Date }): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await lockClient(trx, row.client_id);
      await store.update(trx, row, { status: 'Queued' }, runner);
      await releaseRunner(trx, row.client_id, row.id);
      const payload = { pullOperationId: row.id };
      if ('dueAt' in when) await jobs.enqueue(trx, { kind: SYNC_JOB, payload, dueAt: when.dueAt });
      // eslint-disable-next-line no-restricted-syntax -- real time: the `run_at` of the job handed back, when the platform allows
      else await jobs.enqueue(trx, { kind: SYNC_JOB, payload, runAfter: new Date(Date.now() + when.afterMs) });
    });
  }

  /** The platform refused the connection's credentials: `Deauthorized`, with the reason, and `connection.disconnected`. */
  async function deauthorize(clientId: string, connectionId: string, message: string): Promise<void> {
    await deauthorizeConnection(
      db,
      jobs,
      { clientId, connectionId, message, now: now() },
      { publicUrl: options.publicUrl(), companyReference: companyReferenceReader(options.publicUrl) },
    );
  }

  async function run(payload: { pullOperationId: string }, context: JobContext): Promise<void> {
    let op = await store.operation(payload.pullOperationId);
    if (!op) return;
    // Fetching on a later attempt: the run before this one was interrupted (its process died or shut down) and
    // this run takes over. Whatever it wrote was never visible (readers see a version once it completes).
    const resumed = op.status === 'Fetching' && context.attempt > 1;
    if (op.status !== 'Queued' && !resumed) return;
    const runner = randomUUID();
    if (!(await store.hold(op, runner))) return;
    const held = { ...op, runner };
    try {
      await runHeld(held, runner, resumed, context);
    } catch (err) {
      if (err instanceof JobHandedBack) throw err;
      // Whatever failed (the store, a bug), the operation must not stay Queued or Fetching for good: that would
      // refuse every later sync of its type and hold back upload sessions waiting behind it. Unless the failure was
      // already recorded (a platform error is), it ends InternalError; what failed is in the job's log, not the answer.
      // When the store itself failed, recording that may fail too: the first error is the one to report.
      try {
        const current = await store.operation(held.id);
        if (current && current.runner === runner && ACTIVE_STATUSES.includes(current.status as DatasetStatus)) {
          await fail(
            current,
            'InternalError',
            'The sync failed inside the service; the previous data is still served. Queue it again.',
            runner,
          );
        }
      } catch {
        // Nothing more can be recorded; the job's log gets the original error below.
      }
      throw err;
    }
  }

  /** The sync itself, once this run holds the operation. */
  async function runHeld(held: PullOperationRow, runner: string, resumed: boolean, context: JobContext): Promise<void> {
    let op = held;
    if (resumed) await deleteVersionRows(Number(op.seq), context);
    const connection = await connectionById(db, op.client_id, op.connection_id);
    if (!connection || connection.status !== 'Linked' || !connection.settings) {
      return fail(op, 'AuthError', `Connection ${op.connection_id} is ${connection?.status ?? 'deleted'}; link it again to sync.`, runner);
    }
    const connector = findConnector(connection.platform_key);
    const source = connector?.dataTypes.get(op.data_type as never);
    if (!connector || !source)
      return fail(op, 'FetchError', `Datatype ${op.data_type} not supported by platform(s) ${connection.platform_key}`, runner);
    const fault = await options.faults?.beforeRead({
      clientId: op.client_id,
      companyId: op.company_id,
      connectionId: op.connection_id,
      dataType: op.data_type,
      pullOperationId: op.id,
    });
    if (fault?.kind === 'rateLimited') return requeue(op, runner, { afterMs: fault.retryAfterMs });
    if (fault?.kind === 'wait') return requeue(op, runner, { dueAt: fault.until });
    if (fault?.kind === 'deauthorize') {
      // As a platform that revoked access: the connection turns Deauthorized (with its event), the sync AuthError.
      await deauthorize(connection.client_id, connection.id, fault.message);
      return fail(op, 'AuthError', `The sync failed while fetching ${op.data_type}: ${fault.message}; link the connection again.`, runner);
    }
    if (fault) return fail(op, fault.kind, `The sync failed while fetching ${op.data_type}: ${fault.message}`, runner);
    // What the service keeps for the platform (its written records, its uploads), read up to a mark taken now.
    const kept = await markKept(db, connector, { clientId: connection.client_id, connectionId: connection.id, dataType: op.data_type });
    const written: WrittenRecord[] = kept.written;
    const uploadsUpTo = kept.mark.uploadsUpTo;

    const dataSet = await dataSetOf(db, op.client_id, op.connection_id, op.data_type);
    const previousVersion =
      dataSet?.current_version === null || dataSet?.current_version === undefined ? null : Number(dataSet.current_version);
    // A delta read starts from the cursor of the version it builds on; `?full=true` or no version reads in full.
    const cursor = previousVersion === null || Number(op.full_sync) === 1 ? null : (dataSet?.cursor ?? null);
    const readKey = connector.repeatableReads
      ? repeatableReadKey(connection.platform_key, connection.settings, op.epoch, written, kept.mark)
      : null;
    // `?full=true` always reads: the way to rebuild a version made by an older build of the same key.
    if (readKey !== null && previousVersion !== null && Number(op.full_sync) !== 1 && dataSet?.read_key === readKey) {
      // The platform would answer exactly what the current version was read from (a Sandbox read again at the same
      // epoch, on an emulator clock's day): the sync completes on that version, nothing new or changed.
      const { size } = await versionInfo(db, previousVersion);
      // `dense` and `mode` describe a write, and there is none: complete() leaves the version's own as they are.
      const same = { count: size, modified: 0, dense: false, mode: 'full' as const, cursor: dataSet.cursor ?? null, warnings: [] };
      await complete(op, runner, previousVersion, connection.company_id, connection.client_id, {
        ...same,
        kept: kept.mark,
        readKey,
        reused: true,
      });
      return;
    }
    await openVersion(db, Number(op.seq), op.connection_id, op.data_type);
    const expected = previousVersion === null ? undefined : (await versionInfo(db, previousVersion)).size;
    // A run taking over keeps the progress already shown (it never goes back) until it passes it.
    const shownProgress = resumed ? Number((JSON.parse(op.doc) as { progress?: number }).progress ?? 1) : 1;
    op = await store.update(db, op, { status: 'Fetching', progress: shownProgress }, runner);
    const started = now().toISOString();
    // eslint-disable-next-line no-restricted-syntax -- real time: heartbeats (and progress with them) at most once a second
    let lastReport = Date.now();
    let result: VersionResult;
    // Set when the heartbeat says stop: the write is then aborted and the operation left for the next run.
    let handedBack: JobHandedBack | undefined;
    try {
      const settings = JSON.parse(connection.settings) as Record<string, unknown>;
      const task: VersionTask = {
        version: Number(op.seq),
        previousVersion,
        platformKey: connection.platform_key,
        dataType: op.data_type as DataType,
        settings,
        credentials: await options.credentials.load(db, connection.client_id, connection.id),
        epoch: op.epoch,
        cursor,
        written,
        allowPrivate: options.allowPrivate ?? false,
        now: started,
        fence: { pullOperationId: op.id, runner },
        clientId: connection.client_id,
        connectionId: connection.id,
        uploadsUpTo,
      };
      // An OAuth2 platform's token is refreshed here, for the writing thread too (one refresh across processes).
      const tokens = connector?.oauth2
        ? oauthTokenSource(
            { db, credentials: options.credentials, allowPrivate: options.allowPrivate ?? false },
            { clientId: connection.client_id, connectionId: connection.id },
            connector.oauth2,
          )
        : undefined;
      result = await options.writers.write(
        task,
        async (count) => {
          // eslint-disable-next-line no-restricted-syntax -- real time: heartbeat spacing
          if (Date.now() - lastReport < Math.min(1000, context.heartbeatEveryMs)) return;
          // eslint-disable-next-line no-restricted-syntax -- real time: heartbeat spacing
          lastReport = Date.now();
          try {
            await context.heartbeat();
            op = await store.update(
              db,
              op as PullOperationRow,
              { progress: Math.max(shownProgress, estimateProgress(count, expected)) },
              runner,
            );
          } catch (err) {
            if (err instanceof JobHandedBack) handedBack = err;
            throw err;
          }
        },
        tokens,
      );
    } catch (err) {
      if (handedBack) throw handedBack;
      const message = err instanceof Error ? err.message : String(err);
      if (isConnectorError(err) && err.kind === 'rate-limited') {
        // Not a failure: the operation goes back to Queued and runs again when the platform says.
        await deleteVersionRows(Number(op.seq), context);
        await requeue(op, runner, { afterMs: err.retryAfterMs ?? 60_000 });
        return;
      }
      if (isConnectorError(err) && err.kind === 'unauthorized') {
        // Access revoked or credentials rejected: nothing to retry until the end user links it again.
        await deauthorize(connection.client_id, connection.id, message);
        await fail(op, 'AuthError', `The sync failed while fetching ${op.data_type}: ${message}; link the connection again.`, runner);
        return;
      }
      await fail(op, 'FetchError', `The sync failed while fetching ${op.data_type}: ${message}`, runner);
      if (isConnectorError(err)) return; // Retried by the connector already: the operation's failure is the outcome.
      throw err; // Recorded above; thrown on so the job's log has it.
    }
    await keepDigests(op, runner, result.count, context);
    await complete(op, runner, previousVersion, connection.company_id, connection.client_id, {
      ...result,
      kept: kept.mark,
      readKey,
      reused: false,
    });
  }

  /**
   * What reports keep with the version written (options.digests), stored as its rows are: only while this run holds
   * the operation. A digest that cannot be made or stored is left out, with a warning: the reports then read the
   * version's records instead, as they do for a version from before digests. Heartbeats go on while it is made.
   */
  async function keepDigests(op: PullOperationRow, runner: string, size: number, context: JobContext): Promise<void> {
    if (!options.digests) return;
    const digests = options.digests;
    const version = Number(op.seq);
    const warn = (err: unknown) =>
      options.log?.warn(
        { version, dataType: op.data_type, err: err instanceof Error ? err.message : String(err) },
        "a version's digest could not be kept; reports read its records instead",
      );
    let made: { kind: string; bytes: Uint8Array }[];
    try {
      made = await withHeartbeat(context, () => digests.of(version, op.data_type, size));
    } catch (err) {
      if (err instanceof JobHandedBack) throw err;
      return warn(err);
    }
    for (const { kind, bytes } of made) {
      try {
        await saveVersionDigest(dataStore, version, kind, bytes, { pullOperationId: op.id, runner });
      } catch (err) {
        // Taken over: the run that holds the operation now writes the version again, digests and all.
        if (err instanceof Error && err.message === TAKEN_OVER) throw err;
        warn(err);
      }
    }
  }

  /** Deletes a version's rows and the documents no other version uses (see version-deletion.ts). */
  async function deleteVersionRows(version: number, context: JobContext): Promise<void> {
    await deleteVersion(dataStore, version, () => context.heartbeat());
  }

  /** The switch readers see: one transaction moves the data set to the new version and completes the operation. */
  async function complete(
    op: PullOperationRow,
    runner: string,
    previousVersion: number | null,
    companyId: string,
    clientId: string,
    /** `reused`: the sync completes on the current version (`previousVersion`), which it read again unchanged. */
    outcome: VersionResult & { kept: KeptMark; readKey: string | null; reused: boolean },
  ): Promise<void> {
    const version = outcome.reused ? (previousVersion as number) : Number(op.seq);
    const completed = now().toISOString();
    await db.transaction().execute(async (trx) => {
      // The client row first, as every transaction that changes a client's companies does: one lock order, no deadlocks.
      await lockClient(trx, clientId, true);
      // Throws (and rolls back) if this run no longer holds the operation.
      await store.update(
        trx,
        op,
        {
          status: 'Complete',
          progress: 100,
          completed,
          ...(outcome.warnings.length > 0 ? { statusDescription: outcome.warnings.join('; ') } : {}),
        },
        runner,
      );
      await completeDataSet(trx, clientId, {
        connectionId: op.connection_id,
        dataType: op.data_type,
        version,
        operationId: op.id,
        completed,
        cursor: outcome.cursor,
        readKey: outcome.readKey,
        epoch: Number(op.epoch),
      });
      await setRecordsModified(trx, clientId, op.id, outcome.modified);
      // Complete: from now on later versions may share its documents, and its deletion respects that.
      if (!outcome.reused) await completeVersion(trx, version, outcome.count, outcome.dense);
      // An upload session that ended while this ran syncs next (it reads every upload, so it also covers the ones below).
      await releaseWaiting(trx, jobs, clientId, op.connection_id, op.data_type);
      // A write the platform stored, or a file uploaded, after this sync read them: sync again so it shows.
      if (await keptSince(trx, { clientId, connectionId: op.connection_id, dataType: op.data_type }, outcome.kept)) {
        await queueSyncIfIdle(trx, jobs, { clientId, companyId, connectionId: op.connection_id, dataType: op.data_type }, now());
      }
      // Deleted while it synced: the data set went with it, nothing to stamp.
      const connection = await connectionById(trx, clientId, op.connection_id);
      const platform = connection && findPlatform(connection.platform_key);
      if (connection && platform) {
        const doc = connectionDoc({
          id: connection.id,
          companyId,
          platform,
          status: connection.status,
          created: connection.created,
          lastSync: completed,
        });
        await stampConnectionSync(trx, clientId, connection.id, completed, doc);
      }
      await stampCompanySync(trx, clientId, companyId, completed);
      if (previousVersion !== null && previousVersion !== version) {
        await jobs.enqueue(trx, {
          kind: DELETE_VERSION_JOB,
          payload: { version: previousVersion },
          // eslint-disable-next-line no-restricted-syntax -- real time: the `run_at` of the superseded version's deletion job
          runAfter: new Date(Date.now() + retain),
        });
      }
      await reportReadIfIdle(trx, jobs, { clientId, companyId, publicUrl: options.publicUrl() });
    });
    // A sync that reused the current version wrote no records.
    await ended(op, 'Complete', completed, outcome.reused ? 0 : outcome.count);
    options.afterComplete?.({ clientId, companyId, dataType: op.data_type });
  }

  return {
    sync: {
      run,
      async onGiveUp(payload: { pullOperationId: string }) {
        const op = await store.operation(payload.pullOperationId);
        if (op && ACTIVE_STATUSES.includes(op.status as DatasetStatus)) {
          await fail(
            op,
            'InternalError',
            'The sync was interrupted too often before it completed (the processes running it stopped); the previous data is still served. Queue it again.',
          );
        }
      },
    },
    deleteVersion: {
      run: (payload: { version: number }, context: JobContext) => deleteVersionRows(payload.version, context),
    },
  };
}

/** Integer progress: proportional when the previous size is known, otherwise creeping towards 95. */
function estimateProgress(written: number, expected: number | undefined): number {
  if (expected && expected > 0) return Math.min(95, 1 + Math.floor((written / expected) * 94));
  return Math.min(95, 1 + Math.floor(94 * (1 - 1 / (1 + written / 20_000))));
}

/**
 * Bumped when what a key covers or what the Sandboxes generate changes; the package's version is in the key too, so a
 * release never reuses an older one's versions (and `?full=true` always reads).
 */
const READ_KEY_FORMAT = 1;

/**
 * What a repeatable platform's read is a function of (`Connector.repeatableReads`): the release (a new one may
 * generate or store records differently), the platform, the connection's settings, the epoch and what the service keeps for it
 * (the writes it reads, up to which write and upload). Two reads under one key answer the same records.
 */
function repeatableReadKey(
  platformKey: string,
  settings: string,
  epoch: number,
  written: readonly WrittenRecord[],
  mark: KeptMark,
): string {
  return createHash('sha256')
    .update(JSON.stringify([READ_KEY_FORMAT, VERSION, platformKey, settings, epoch, mark.writesUpTo, mark.uploadsUpTo, written]))
    .digest('base64url');
}
