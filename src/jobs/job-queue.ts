import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** A unit of background work: a sync, a write, a webhook delivery, deleting an old data-set version… */
export interface JobSpec {
  kind: string;
  payload: unknown;
  /** Not before this real time (default now): machinery (a superseded version kept for readers, a platform's `Retry-After`). */
  runAfter?: Date;
  /**
   * Not before this business time (a write's time-out, a webhook retry, the end of a quota window): the same as
   * `runAfter` on real time; on an emulator test clock the job waits until an advance of the clock reaches it.
   */
  dueAt?: Date;
}

/** What services see of the job engine: they queue work. */
export interface JobQueue {
  /**
   * Queues a job. Pass the caller's transaction: the job exists if and only if the change that caused it
   * commits (a pull operation and the job that runs it are never one without the other).
   */
  enqueue(executor: Kysely<Database>, job: JobSpec): Promise<void>;
}

/** What a job handler gets besides its payload. */
export interface JobContext {
  /** 1 for the first run; more when an earlier run was interrupted (its process died or shut down). */
  attempt: number;
  /**
   * Long handlers call this between batches (at most about once a second). It throws `JobHandedBack` when the
   * job must stop now: this process is shutting down, or it lost the job (it was presumed dead and another
   * process took the job over). The handler must then leave its resource as it is, for the next run.
   */
  heartbeat(): Promise<void>;
  /** Call `heartbeat` at least this often, in ms (a third of the lease, or more often). */
  heartbeatEveryMs: number;
}

/** Thrown by `JobContext.heartbeat` when the job must stop and run again elsewhere. */
export class JobHandedBack extends Error {
  constructor(reason: string) {
    super(`the job was handed back: ${reason}`);
    this.name = 'JobHandedBack';
  }
}

/**
 * Runs `work` (a wait on something outside the store: a platform request and the `Retry-After` it waits out) while
 * heartbeating every `context.heartbeatEveryMs`, so the job keeps its lease however long `work` waits; `work` itself
 * need not know about heartbeats. When a heartbeat says the job must stop, `work`'s signal is aborted: a connector
 * given it stops waiting and sends nothing more. Once `work` has settled, its result is returned if it succeeded all
 * the same (what it did stands); otherwise `JobHandedBack` is thrown, whatever `work` failed with.
 */
export async function withHeartbeat<T>(context: JobContext, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let handedBack: JobHandedBack | undefined;
  let beating: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (beating || handedBack) return;
    beating = context
      .heartbeat()
      .catch((err: unknown) => {
        if (!(err instanceof JobHandedBack)) return; // The store out of reach for a moment: the next beat tries again.
        handedBack = err;
        controller.abort(err);
      })
      .finally(() => (beating = undefined));
  }, context.heartbeatEveryMs);
  try {
    return await work(controller.signal);
  } catch (err) {
    throw handedBack ?? err;
  } finally {
    clearInterval(timer);
    await beating;
  }
}

export interface JobHandler {
  /**
   * Runs the job. Errors are the handler's to record on its resource (a sync ends in `FetchError`); the job then
   * ends. A job is run again only when a run was interrupted, so handlers must accept an attempt after one
   * that stopped part-way.
   */
  run(payload: any, context: JobContext): Promise<void>;
  /** Called instead of a run when the job was interrupted `MAX_JOB_RUNS` times: the handler settles its resource. */
  onGiveUp?(payload: any): Promise<void>;
}

/** Runs of one job, interrupted ones included, before its handler gives up on it. */
export const MAX_JOB_RUNS = 5;

/** The queue plus the machinery that runs the jobs: in-process on SQLite, graphile-worker on Postgres. */
export interface JobEngine extends JobQueue {
  /** Starts running jobs in this process with these handlers (worker roles only). */
  start(handlers: Record<string, JobHandler>): Promise<void>;
  /** Looks for work now (after this process queued some); engines notified by the database ignore it. */
  wake(): void;
  /**
   * Stops taking jobs and waits for the running ones; those still running after the engine's shutdown grace
   * period are handed back (they stop at their next heartbeat and run again later, here or elsewhere).
   */
  stop(): Promise<void>;
  /** Jobs due and not yet running, by kind, across every process sharing the store (read when metrics are scraped). */
  queueDepth(): Promise<QueueDepth[]>;
}

/** How many jobs of a kind wait to run now, and how long the one due earliest has waited, in seconds. */
export interface QueueDepth {
  kind: string;
  queued: number;
  oldestAgeSeconds: number;
}
