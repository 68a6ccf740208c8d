import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobSpec, QueueDepth } from './job-queue.js';

export interface Job {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
}

/**
 * The `jobs` table of the in-process engine (SQLite): any process may enqueue; workers claim jobs under a lease.
 */
export function createJobsStore(db: Kysely<Database>) {
  return {
    /** Adds a job; pass the caller's transaction so the job exists if and only if the change that caused it does. */
    async enqueue(executor: Kysely<Database>, job: JobSpec): Promise<string> {
      const id = randomUUID();
      const now = new Date().toISOString();
      await executor
        .insertInto('jobs')
        .values({
          id,
          kind: job.kind,
          payload: JSON.stringify(job.payload),
          status: 'queued',
          run_after: (job.runAfter ?? job.dueAt ?? new Date()).toISOString(),
          created: now,
        })
        .execute();
      return id;
    },

    /**
     * Claims the oldest due job for `owner` until `leaseMs` from now, or returns undefined. The re-check of
     * `status` in the UPDATE makes the claim atomic when several workers race for the same job.
     */
    async claim(owner: string, leaseMs: number, kinds: readonly string[]): Promise<Job | undefined> {
      const now = new Date();
      const { rows } = await sql<{ id: string; kind: string; payload: string; attempts: number }>`
        UPDATE jobs SET status = 'running', lease_owner = ${owner},
          lease_expires = ${new Date(now.getTime() + leaseMs).toISOString()}, attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND run_after <= ${now.toISOString()}
                    AND kind IN (${sql.join(kinds)}) ORDER BY run_after, created LIMIT 1)
          AND status = 'queued'
        RETURNING id, kind, payload, attempts`.execute(db);
      const row = rows[0];
      return row && { id: row.id, kind: row.kind, payload: JSON.parse(row.payload), attempts: Number(row.attempts) };
    },

    /** Extends a lease; false if the job is no longer this owner's (it was taken back as expired). */
    async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
      const result = await db
        .updateTable('jobs')
        .set({ lease_expires: new Date(Date.now() + leaseMs).toISOString() })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'running')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async finish(id: string, owner: string, status: 'done' | 'failed'): Promise<void> {
      await db.updateTable('jobs').set({ status, lease_expires: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
    },

    /** Puts a running job back in the queue (this process is shutting down); the next run is its next attempt. */
    async release(id: string, owner: string): Promise<void> {
      await db
        .updateTable('jobs')
        .set({ status: 'queued', lease_owner: null, lease_expires: null })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'running')
        .execute();
    },

    /**
     * Running jobs whose lease ran out (their process died) go back in the queue to run again; their `attempts`
     * keeps counting the interrupted runs. Returns how many.
     */
    async requeueExpired(): Promise<number> {
      const now = new Date().toISOString();
      const result = await db
        .updateTable('jobs')
        .set({ status: 'queued', lease_owner: null, lease_expires: null, run_after: now })
        .where('status', '=', 'running')
        .where('lease_expires', '<', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Due jobs waiting to run, by kind: a range of the `jobs_due` index (status, run_after), so only the backlog is read. */
    async queueDepth(now: Date): Promise<QueueDepth[]> {
      const rows = await db
        .selectFrom('jobs')
        .select((eb) => ['kind', eb.fn.countAll<number>().as('queued'), eb.fn.min('run_after').as('oldest')])
        .where('status', '=', 'queued')
        .where('run_after', '<=', now.toISOString())
        .groupBy('kind')
        .execute();
      return rows.map((row) => ({
        kind: row.kind,
        queued: Number(row.queued),
        oldestAgeSeconds: Math.max(0, (now.getTime() - Date.parse(row.oldest)) / 1000),
      }));
    },

    /** Deletes finished jobs older than `before`. */
    async prune(before: Date): Promise<void> {
      await db.deleteFrom('jobs').where('status', 'in', ['done', 'failed']).where('created', '<', before.toISOString()).execute();
    },
  };
}

export type JobsStore = ReturnType<typeof createJobsStore>;
