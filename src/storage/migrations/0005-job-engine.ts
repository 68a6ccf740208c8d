import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * - `pull_operations.runner`: which run of the sync job holds the operation. A run that was presumed dead and
 *   taken over can no longer move the operation (its updates are fenced by this token).
 * - `job_workers` (Postgres): the worker processes alive, each with its graphile-worker pool id and the time
 *   it last said so. A live worker releases the jobs of a pool that stopped saying so (`src/jobs/README.md`).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('pull_operations').addColumn('runner', 'text').execute();
  if (dialect === 'postgres') {
    await db.schema
      .createTable('job_workers')
      .addColumn('pool_id', 'text', (c) => c.primaryKey())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('started', 'timestamptz', (c) => c.notNull())
      .addColumn('last_seen', 'timestamptz', (c) => c.notNull())
      .execute();
  }
}
