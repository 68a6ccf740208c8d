import type { Generated } from 'kysely';

// What the service keeps for its own running rather than for a client: the job queue, worker processes, shared
// settings.

/** Postgres only: worker processes and when each last said it was alive (database time). */
export interface JobWorkersTable {
  pool_id: string;
  host: string;
  started: Date;
  last_seen: Date;
}

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  /** queued | running | done | failed */
  status: string;
  run_after: string;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires: string | null;
  created: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}
