import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Job, JobsStore } from './jobs.store.js';

/** What a job handler gets besides its payload. */
export interface JobContext {
  job: Job;
  /** Extends the lease; long handlers call it between batches. Throws if the job was taken back. */
  heartbeat(): Promise<void>;
}

export interface JobHandler {
  run(payload: any, context: JobContext): Promise<void>;
  /** Called once for a job whose process died while running it (its lease expired). */
  onAbandoned?(payload: any, job: Job): Promise<void>;
}

export interface JobRunnerOptions {
  jobs: JobsStore;
  handlers: Record<string, JobHandler>;
  log: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** How often to look for due jobs and expired leases when idle, in ms. */
  pollMs?: number;
  /** How long a claimed job stays this process's without a heartbeat, in ms. */
  leaseMs?: number;
}

/**
 * Runs durable jobs inside this process: claims due jobs under a lease, renews the lease while a job runs,
 * and hands jobs whose lease expired (their process died) to their handler's `onAbandoned`.
 */
export function createJobRunner(options: JobRunnerOptions) {
  const owner = `${process.pid}:${randomUUID()}`;
  const concurrency = options.concurrency ?? 2;
  const pollMs = options.pollMs ?? 250;
  const leaseMs = options.leaseMs ?? 30_000;
  const kinds = Object.keys(options.handlers);
  let running = 0;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  async function runOne(job: Job): Promise<void> {
    const handler = options.handlers[job.kind];
    const context: JobContext = {
      job,
      async heartbeat() {
        if (!(await options.jobs.renew(job.id, owner, leaseMs))) throw new Error(`job ${job.id} is no longer held by this process`);
      },
    };
    try {
      await handler.run(job.payload, context);
      await options.jobs.finish(job.id, owner, 'done');
    } catch (err) {
      options.log.error({ err, jobId: job.id, kind: job.kind }, 'job failed');
      await options.jobs.finish(job.id, owner, 'failed').catch(() => {});
    }
  }

  async function recoverAbandoned(): Promise<void> {
    for (const job of await options.jobs.takeExpired()) {
      options.log.warn({ jobId: job.id, kind: job.kind }, 'job abandoned by a stopped process');
      await options.handlers[job.kind]?.onAbandoned?.(job.payload, job);
    }
  }

  async function tick(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    try {
      await recoverAbandoned();
      while (!stopped && running < concurrency) {
        const job = await options.jobs.claim(owner, leaseMs, kinds);
        if (!job) break;
        running++;
        const task = runOne(job).finally(() => {
          running--;
          inFlight.delete(task);
          wake();
        });
        inFlight.add(task);
      }
    } catch (err) {
      options.log.error({ err }, 'job polling failed');
    }
    if (!stopped && !timer) timer = setTimeout(() => void tick(), pollMs);
  }

  function wake(): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), 0);
  }

  return {
    owner,
    start(): void {
      if (!stopped) return;
      stopped = false;
      wake();
    },
    /** Looks for work now (call after enqueueing). */
    wake,
    /** Stops claiming jobs and waits for the running ones to finish. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
