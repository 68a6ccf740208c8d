import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../../src/storage/database.js';
import { makeWorkerUtils } from 'graphile-worker';
import { graphileSchema } from '../../src/jobs/graphile-jobs.store.js';

/**
 * Looks at and changes queued jobs where each engine keeps them: the `jobs` table (SQLite) or graphile-worker's
 * job table (Postgres; its private table, as the public view leaves out payloads). For tests that bring a job's
 * time forward or leave behind what a crashed process would.
 */
export interface QueuedJob {
  id: string;
  payload: unknown;
  runAt: Date;
}

export async function queuedJobs(store: Store, kind: string): Promise<QueuedJob[]> {
  if (store.dialect.name === 'postgres') {
    const schema = await graphileSchema(store.db);
    const { rows } = await sql<{ id: string; payload: unknown; run_at: Date }>`
      SELECT j.id::text AS id, j.payload, j.run_at FROM ${sql.id(schema, '_private_jobs')} j
      JOIN ${sql.id(schema, '_private_tasks')} t ON t.id = j.task_id
      WHERE t.identifier = ${kind} AND j.locked_at IS NULL ORDER BY j.id`.execute(store.db);
    return rows.map((r) => ({ id: r.id, payload: r.payload, runAt: new Date(r.run_at) }));
  }
  const rows = await store.db
    .selectFrom('jobs')
    .select(['id', 'payload', 'run_after'])
    .where('kind', '=', kind)
    .where('status', '=', 'queued')
    .orderBy('created')
    .execute();
  return rows.map((r) => ({ id: r.id, payload: JSON.parse(r.payload), runAt: new Date(r.run_after) }));
}

/** Makes a queued job due now. */
export async function runJobNow(store: Store, id: string): Promise<void> {
  if (store.dialect.name === 'postgres') {
    const schema = await graphileSchema(store.db);
    await sql`UPDATE ${sql.id(schema, '_private_jobs')} SET run_at = now() WHERE id = ${id}::bigint`.execute(store.db);
    return;
  }
  await store.db.updateTable('jobs').set({ run_after: new Date().toISOString() }).where('id', '=', id).execute();
}

/**
 * Leaves the queued job as a process that took it and then died would: held by a worker that stopped saying
 * it is alive, or (Postgres, `registered: false`) by a pool that died before it registered in `job_workers`.
 * Returns how many jobs it changed.
 */
export async function abandonJob(store: Store, id: string, options: { registered?: boolean } = {}): Promise<number> {
  if (store.dialect.name === 'postgres') {
    const schema = await graphileSchema(store.db);
    const dead = `pool-dead-${randomUUID()}`;
    if (options.registered !== false) {
      await sql`INSERT INTO job_workers (pool_id, host, started, last_seen) VALUES (${dead}, 'gone', now() - interval '1 hour', now() - interval '1 hour')`.execute(
        store.db,
      );
    }
    const result =
      await sql`UPDATE ${sql.id(schema, '_private_jobs')} SET locked_by = ${dead}, locked_at = now() - interval '1 hour', attempts = attempts + 1
      WHERE id = ${id}::bigint AND locked_at IS NULL`.execute(store.db);
    return Number(result.numAffectedRows ?? 0);
  }
  const result = await store.db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      lease_owner: 'dead-process',
      lease_expires: new Date(Date.now() - 1000).toISOString(),
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Takes a running job away from the process running it, as the other workers do when they presume it dead
 * (it was paused longer than the lease): its lease expires (SQLite), or its pool is unlocked and struck off
 * `job_workers` (Postgres). The process itself is alive and finds out at its next heartbeat. Returns how many
 * running jobs of `kind` there were.
 */
export async function takeAwayRunningJobs(store: Store, kind: string): Promise<number> {
  if (store.dialect.name === 'postgres') {
    const schema = await graphileSchema(store.db);
    const { rows } = await sql<{ locked_by: string }>`SELECT locked_by FROM ${sql.id(schema, 'jobs')}
      WHERE task_identifier = ${kind} AND locked_at IS NOT NULL`.execute(store.db);
    if (rows.length === 0) return 0;
    const pools = [...new Set(rows.map((r) => r.locked_by))];
    const utils = await makeWorkerUtils({ pgPool: store.pgPool, schema });
    try {
      await utils.forceUnlockWorkers(pools);
    } finally {
      await utils.release();
    }
    await store.db.deleteFrom('job_workers').where('pool_id', 'in', pools).execute();
    return rows.length;
  }
  const result = await store.db
    .updateTable('jobs')
    .set({ lease_expires: new Date(Date.now() - 1000).toISOString() })
    .where('kind', '=', kind)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The running jobs of `kind`: who holds each (its claim on SQLite, its worker pool on Postgres) and how many runs it
 * has had, interrupted ones included. A job taken over by another worker shows a new holder and one more run.
 */
export async function runningJobs(store: Store, kind: string): Promise<{ holder: string; attempts: number }[]> {
  if (store.dialect.name === 'postgres') {
    const schema = await graphileSchema(store.db);
    const { rows } = await sql<{ locked_by: string; attempts: number }>`SELECT locked_by, attempts FROM ${sql.id(schema, 'jobs')}
      WHERE task_identifier = ${kind} AND locked_at IS NOT NULL`.execute(store.db);
    return rows.map((r) => ({ holder: r.locked_by, attempts: Number(r.attempts) }));
  }
  const rows = await store.db
    .selectFrom('jobs')
    .select(['lease_owner', 'attempts'])
    .where('kind', '=', kind)
    .where('status', '=', 'running')
    .execute();
  return rows.map((r) => ({ holder: String(r.lease_owner), attempts: Number(r.attempts) }));
}
