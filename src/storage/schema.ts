import type { Generated } from 'kysely';

/** Row types of every table, as Kysely sees them. Timestamps are ISO-8601 UTC text on both stores. */
export interface Database {
  clients: ClientsTable;
  api_keys: ApiKeysTable;
  companies: CompaniesTable;
  connections: ConnectionsTable;
  integrations: IntegrationsTable;
  settings: SettingsTable;
  rate_counters: RateCountersTable;
  pull_operations: PullOperationsTable;
  data_sets: DataSetsTable;
  records: RecordsTable;
  jobs: JobsTable;
}

export interface ClientsTable {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  /** Operator override of the plan's daily quota; null keeps the plan default. */
  daily_quota: number | null;
  /** Operator per-second burst limit; null means none. */
  burst_limit: number | null;
  /** JSON text of the Profile resource. */
  profile: string;
  /** Bumped in the same transaction as every change to the client's companies: keys the count cache. */
  companies_version: Generated<number>;
  /** JSON of the client's default SyncSetting list; null for the built-in defaults. */
  sync_settings: string | null;
}

export interface ApiKeysTable {
  id: string;
  client_id: string;
  name: string | null;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  created_at: string;
  expires_at: string | null;
}

export interface CompaniesTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  name: string;
  created: string;
  /** Most recent completed sync of any of the company's connections. */
  last_sync: string | null;
  /** JSON of the company's own SyncSetting list; null to follow the client's. */
  sync_settings: string | null;
  /**
   * JSON text of the Company's own fields. `redirect`, `lastSync` and `dataConnections` are spliced in when
   * served, because they depend on the public address and on other tables.
   */
  doc: string;
}

export interface ConnectionsTable {
  id: string;
  client_id: string;
  company_id: string;
  platform_key: string;
  source_type: string;
  status: string;
  created: string;
  /** JSON text of the Connection without `linkUrl` (which depends on the public address). */
  doc: string;
  last_sync: string | null;
  /** JSON of the ConnectionSettings fixed at authorisation; null while PendingAuth. */
  settings: string | null;
}

/** One sync of one data type on one connection; `seq` is the data-set version it writes. */
export interface PullOperationsTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  company_id: string;
  connection_id: string;
  data_type: string;
  status: string;
  requested: string;
  /** Syncs of this data type on this connection completed before this one. */
  epoch: number;
  /** JSON text of the PullOperation resource. */
  doc: string;
}

/** Which version of a connection's data type readers see. */
export interface DataSetsTable {
  connection_id: string;
  data_type: string;
  client_id: string;
  company_id: string;
  current_version: number | null;
  completed_syncs: Generated<number>;
  last_successful_sync: string | null;
  latest_successful_sync_id: string | null;
}

/** A record of one data-set version, as served. */
export interface RecordsTable {
  version: number;
  /** Order within the version (ascending record id), assigned when the version is written. */
  position: number;
  record_id: string;
  content_hash: string;
  modified_date: string;
  is_deleted: number;
  doc: string;
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

/** The platforms this server has, copied from the connector registry at start so lists can query them. */
export interface IntegrationsTable {
  key: string;
  position: number;
  /** JSON text of the Integration resource without `logoUrl`. */
  doc: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface RateCountersTable {
  client_id: string;
  /** Window identifier, e.g. `day:2026-11-22` or `sec:1795310093`. */
  window: string;
  count: number;
  expires_at: string;
}
