import os from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { MAX_JOB_RUNS, type QueueDepth } from './job-queue.js';

/*
 * What the graphile-worker engine keeps in the store: its jobs (through graphile-worker's `add_job`), the
 * `job_workers` liveness table, and the old `jobs` table it adopts. No tenant data: jobs carry ids of the
 * client's own rows, which their handlers read through their modules' stores.
 */

/**
 * The job schema beside the service's own: `graphile_worker` for a store in `public`, `<schema>_graphile_worker`
 * for a store in another schema (so two stores in one database never share a queue).
 */
export async function graphileSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db);
  const current = rows[0]?.schema ?? 'public';
  return current === 'public' ? 'graphile_worker' : `${current}_graphile_worker`;
}

/** Queues a job in the caller's transaction (`executor`): it commits, or is rolled back, with the change. */
export async function addJob(executor: Kysely<Database>, schema: string, kind: string, payload: string, runAfter: string): Promise<void> {
  await sql`SELECT ${sql.id(schema)}.add_job(${kind}, ${payload}::json,
    run_at => ${runAfter}::timestamptz, max_attempts => ${MAX_JOB_RUNS + 1})`.execute(executor);
}

/** Puts a worker pool in `job_workers` (again, after it was presumed dead), seen now. */
export async function registerPool(db: Kysely<Database>, pool: string): Promise<void> {
  await db
    .insertInto('job_workers')
    .values({ pool_id: pool, host: `${os.hostname()}:${process.pid}`, started: sql`now()` as never, last_seen: sql`now()` as never })
    .onConflict((oc) => oc.column('pool_id').doUpdateSet({ last_seen: sql`now()` as never }))
    .execute();
}

/** Says a pool is alive; false when it is no longer registered (the others presumed it dead). */
export async function markPoolSeen(db: Kysely<Database>, pool: string): Promise<boolean> {
  const seen = await db
    .updateTable('job_workers')
    .set({ last_seen: sql`now()` as never })
    .where('pool_id', '=', pool)
    .executeTakeFirst();
  return Number(seen.numUpdatedRows) > 0;
}

/**
 * Pools presumed dead: registered ones silent for `leaseMs`, and ones holding jobs that never registered (a worker
 * that died between creating its pool and registering it; two leases is long past that moment).
 */
export async function deadPools(db: Kysely<Database>, schema: string, leaseMs: number): Promise<string[]> {
  const silent = await db
    .selectFrom('job_workers')
    .select('pool_id')
    .where('last_seen', '<', sql<Date>`now() - make_interval(secs => ${leaseMs / 1000})`)
    .execute();
  const { rows: unregistered } = await sql<{ pool_id: string }>`
    SELECT DISTINCT j.locked_by AS pool_id FROM ${sql.id(schema, 'jobs')} j
    WHERE j.locked_at < now() - make_interval(secs => ${(2 * leaseMs) / 1000})
      AND NOT EXISTS (SELECT 1 FROM job_workers w WHERE w.pool_id = j.locked_by)`.execute(db);
  return [...silent, ...unregistered].map((row) => row.pool_id);
}

export async function forgetPools(db: Kysely<Database>, pools: string[]): Promise<void> {
  await db.deleteFrom('job_workers').where('pool_id', 'in', pools).execute();
}

/**
 * Jobs in the `jobs` table, queued by a version before this engine (or by its API processes still running
 * during a rolling upgrade), move to graphile-worker: the queued ones, and running ones whose process died.
 * A job an old worker holds stays with it.
 */
export async function adoptLocalJobs(db: Kysely<Database>, schema: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const rows = await trx
      .deleteFrom('jobs')
      .where((eb) =>
        eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_expires', '<', new Date().toISOString())])]),
      )
      .returning(['kind', 'payload', 'run_after'])
      .execute();
    for (const row of rows) await addJob(trx, schema, row.kind, row.payload, row.run_after);
  });
}

/**
 * Due jobs no worker holds, by kind, with the age of the earliest due one in database time. graphile-worker deletes
 * jobs once they succeed, so its table holds the backlog (and the few given up on), not the history.
 */
export async function queueDepth(db: Kysely<Database>, schema: string): Promise<QueueDepth[]> {
  const { rows } = await sql<{ kind: string; queued: number; oldest_age: number }>`
    SELECT task_identifier AS kind, count(*)::int AS queued,
      extract(epoch FROM now() - min(run_at))::float8 AS oldest_age
    FROM ${sql.id(schema, 'jobs')}
    WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now()
    GROUP BY task_identifier`.execute(db);
  return rows.map((row) => ({ kind: row.kind, queued: Number(row.queued), oldestAgeSeconds: Math.max(0, Number(row.oldest_age)) }));
}
