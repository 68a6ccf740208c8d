import { EventEmitter } from 'node:events';
import type { Logger as Pino } from 'pino';
import {
  Logger,
  makeWorkerUtils,
  run,
  runMigrations,
  type JobHelpers,
  type Runner,
  type Task,
  type WorkerEvents,
  type WorkerUtils,
} from 'graphile-worker';
import type { Store } from '../storage/database.js';
import { JobHandedBack, MAX_JOB_RUNS, type JobContext, type JobEngine, type JobHandler } from './job-queue.js';
import {
  addJob,
  adoptLocalJobs,
  deadPools,
  forgetPools,
  graphileSchema,
  markPoolSeen,
  queueDepth,
  registerPool,
} from './graphile-jobs.store.js';

export interface GraphileJobEngineOptions {
  log: Pick<Pino, 'error' | 'warn' | 'info' | 'debug'>;
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** How often to look for jobs that became due (new jobs arrive at once through LISTEN/NOTIFY), in ms. */
  pollMs?: number;
  /** A worker process silent for this long is presumed dead and its jobs run again elsewhere, in ms. */
  leaseMs?: number;
  /** On stop, how long running jobs may take to finish before they are handed back, in ms. */
  shutdownGraceMs?: number;
}

/**
 * Postgres: jobs are graphile-worker jobs. A job is queued with `add_job` inside the caller's transaction and
 * reaches idle workers at once through LISTEN/NOTIFY. graphile-worker unlocks the jobs of a crashed worker only
 * after 4 hours, so live workers watch each other through `job_workers`: one whose pool has not said it is alive
 * for `leaseMs` is presumed dead, and its jobs are unlocked with `forceUnlockWorkers` to run again at once.
 */
export async function createGraphileJobEngine(store: Store, options: GraphileJobEngineOptions): Promise<JobEngine> {
  const { db } = store;
  if (!store.pgPool) throw new Error('the graphile-worker engine needs a Postgres store');
  const pgPool = store.pgPool;
  const schema = await graphileSchema(db);
  const logger = new Logger(() => (level, message, meta) => {
    const log = level === 'error' ? options.log.error : level === 'warning' ? options.log.warn : options.log.debug;
    log.call(options.log, { jobEngine: 'graphile-worker', ...meta }, message);
  });
  const shared = { pgPool, schema, logger };
  await runMigrations(shared);
  await adoptLocalJobs(db, schema);

  const leaseMs = options.leaseMs ?? 30_000;
  let runner: Runner | undefined;
  let utils: WorkerUtils | undefined;
  let poolId: string | undefined;
  let watch: NodeJS.Timeout | undefined;
  /**
   * When other workers last presumed this process dead: the jobs it was running then may run elsewhere now, so
   * they stop; jobs it takes afterwards are its own again.
   */
  let lostAt: number | undefined;

  function task(kind: string, handler: JobHandler): Task {
    return async (payload: unknown, helpers: JobHelpers) => {
      const attempt = helpers.job.attempts;
      if (attempt > MAX_JOB_RUNS) {
        options.log.warn({ jobId: helpers.job.id, kind, attempt }, 'job interrupted too often: giving up');
        await handler.onGiveUp?.(payload);
        return;
      }
      const startedAt = Date.now();
      const context: JobContext = {
        attempt,
        // A local check: liveness is the process's (keepWatch), so a second is soon enough to stop.
        heartbeatEveryMs: 1000,
        async heartbeat() {
          if (lostAt !== undefined && startedAt <= lostAt)
            throw new JobHandedBack('this worker was presumed dead and its jobs were taken over');
          if (helpers.abortSignal.aborted) throw new JobHandedBack('this process is shutting down');
        },
      };
      try {
        await handler.run(payload, context);
      } catch (err) {
        // Handed back: fail the run so graphile-worker runs the job again (after its retry delay).
        if (err instanceof JobHandedBack) throw err;
        // Any other failure was recorded by the handler on its resource; the job is over.
        options.log.error({ err, jobId: helpers.job.id, kind }, 'job failed');
      }
    };
  }

  /** Says this pool is alive, and unlocks the jobs of pools that stopped saying so. */
  async function keepWatch(): Promise<void> {
    if (!poolId) return;
    await adoptLocalJobs(db, schema);
    if (!(await markPoolSeen(db, poolId))) {
      // Another worker presumed this one dead (it was paused for longer than the lease): whatever it runs now
      // runs elsewhere too, so those jobs stop at their next heartbeat. Then it says it is alive again.
      lostAt = Date.now();
      options.log.error({ poolId }, 'this worker was presumed dead by the others; its running jobs stop');
      await registerPool(db, poolId);
      return;
    }
    const ids = await deadPools(db, schema, leaseMs);
    if (ids.length === 0) return;
    await utils!.forceUnlockWorkers(ids);
    await forgetPools(db, ids);
    options.log.warn({ pools: ids }, 'worker processes stopped answering: their jobs run again');
  }

  return {
    enqueue: (executor, job) =>
      addJob(executor, schema, job.kind, JSON.stringify(job.payload ?? null), (job.runAfter ?? job.dueAt ?? new Date()).toISOString()),
    async start(handlers) {
      if (runner) return;
      utils = await makeWorkerUtils(shared);
      const events = new EventEmitter() as WorkerEvents;
      events.on('pool:create', ({ workerPool }) => {
        poolId = workerPool.id;
      });
      const taskList: Record<string, Task> = {};
      for (const [kind, handler] of Object.entries(handlers)) taskList[kind] = task(kind, handler);
      runner = await run({
        ...shared,
        concurrency: options.concurrency ?? 2,
        pollInterval: options.pollMs ?? 1000,
        noHandleSignals: true,
        crontab: '',
        taskList,
        events,
        gracefulShutdownAbortTimeout: options.shutdownGraceMs ?? 10_000,
      });
      if (!poolId) throw new Error('graphile-worker did not report its pool');
      const started = runner;
      // graphile-worker stops by itself when it sees a breaking migration of its schema by a newer version:
      // this process then runs no jobs, and says so.
      started.promise.then(
        () => runner === started && options.log.error('graphile-worker stopped by itself: this process runs no more jobs; restart it'),
        (err) => runner === started && options.log.error({ err }, 'graphile-worker failed: this process runs no more jobs; restart it'),
      );
      await registerPool(db, poolId);
      const every = Math.max(100, Math.floor(leaseMs / 3));
      const tick = () => {
        keepWatch()
          .catch((err) => options.log.error({ err }, 'watching the other workers failed'))
          .finally(() => {
            if (runner) watch = setTimeout(tick, every);
          });
      };
      watch = setTimeout(tick, every);
    },
    wake() {
      // New jobs reach the workers through NOTIFY.
    },
    queueDepth: () => queueDepth(db, schema),
    async stop() {
      const current = runner;
      runner = undefined;
      if (watch) clearTimeout(watch);
      if (!current) return;
      // graphile-worker stops taking jobs, waits for the running ones and fires their abort signal after
      // `shutdownGraceMs`: they are then handed back (their heartbeat throws) and run again elsewhere.
      await current.stop('shutting down').catch((err) => options.log.warn({ err }, 'graphile-worker had already stopped'));
      if (poolId) await forgetPools(db, [poolId]).catch(() => {});
      await utils?.release();
    },
  };
}
