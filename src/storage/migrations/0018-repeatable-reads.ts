import { sql, type Kysely } from 'kysely';

/**
 * `data_sets.read_key`: for a platform whose reads are repeatable (the Sandboxes: a pure function of the connection's
 * settings, the epoch and what the service keeps for it), the key of what the current version was read from; a sync
 * that would read under the same key completes on that version instead of writing a copy of it (src/syncs/sync-job.ts).
 * Null for every other platform, and for versions written before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE data_sets ADD COLUMN read_key text`.execute(db);
}
