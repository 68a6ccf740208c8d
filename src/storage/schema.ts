import type { ColumnType, Generated } from 'kysely';

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
  record_docs: RecordDocsTable;
  record_index: RecordIndexTable;
  record_versions: RecordVersionsTable;
  record_staging: RecordStagingTable;
  connection_credentials: ConnectionCredentialsTable;
  oauth_states: OAuthStatesTable;
  uploads: UploadsTable;
  upload_chunks: UploadChunksTable;
  upload_configurations: UploadConfigurationsTable;
  upload_sessions: UploadSessionsTable;
  upload_session_pages: UploadSessionPagesTable;
  jobs: JobsTable;
  job_workers: JobWorkersTable;
  push_operations: PushOperationsTable;
  platform_writes: PlatformWritesTable;
  webhook_consumers: WebhookConsumersTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  portal_sessions: PortalSessionsTable;
  client_usage_hours: ClientUsageHoursTable;
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
  /** 1 once a read.completed event has reported this operation. */
  read_reported: Generated<number>;
  /** Records new, changed or newly deleted by this sync; null until it completes. */
  records_modified: number | null;
  /** The run of the sync job that holds the operation while it is Fetching. */
  runner: string | null;
  /** 1 when queued with `?full=true`: the platform is read in full whatever the cursor. */
  full_sync: Generated<number>;
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
  /** The platform's cursor handed back with the current version (delta syncs read from it); null: read in full. */
  cursor: Generated<string | null>;
}

/**
 * A record of one data-set version as served, keyed by `version * 2^32 + position` (see recordKey): a version's
 * records are one contiguous key range in position order.
 */
export interface RecordDocsTable {
  key: number | bigint | string;
  doc: string;
}

/** The indexed fields lists filter and order on (which record field fills each: src/records/record-fields.ts). */
export interface RecordFieldColumns {
  f_status: string | null;
  f_date: string | null;
  f_amount: number | null;
  f_currency: string | null;
  f_ref: string | null;
}

/** One narrow row per record of a version: its identity, change tracking and the indexed fields lists filter on. */
export interface RecordIndexTable extends RecordFieldColumns {
  version: number;
  record_id: string;
  /** Order within the version (ascending record id), assigned when the version is written. */
  position: number;
  content_hash: string;
  modified_date: string;
  is_deleted: number;
  /** Key of the record's document: its own (`version * 2^32 + position`) or one shared with an earlier version. */
  doc_key: number | bigint | string;
}

/** An OAuth2 link attempt under way (see src/link/oauth.ts). */
export interface OAuthStatesTable {
  state: string;
  client_id: string;
  company_id: string;
  connection_id: string;
  code_verifier: string;
  /** JSON of the Link page's custom parameters, carried to the finish. */
  custom: string;
  expires: string;
  /** A consent covering several organisations, sealed, while the end user picks one (null: an attempt at the platform). */
  pending: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A connection's credentials, sealed (see src/secrets/sealed-box.ts); never served. */
export interface ConnectionCredentialsTable {
  connection_id: string;
  client_id: string;
  company_id: string;
  /** `v1.<key id>.<iv>.<tag>.<ciphertext>`, bound to the connection id. */
  sealed: string;
  updated: string;
  /** Until when one process holds the right to refresh the OAuth tokens in `sealed` (ISO-8601); null: nobody. */
  refresh_lease: ColumnType<string | null, string | null | undefined, string | null>;
  /** After a refresh the platform did not answer: the earliest time to try again. */
  refresh_retry_after: ColumnType<string | null, string | null | undefined, string | null>;
  /** Refreshes failed in a row (the cooldown doubles with each). */
  refresh_failures: ColumnType<number, number | undefined, number>;
}

/** Each data-set version written: its data set, its size once complete, and whether its documents are its own and dense. */
export interface RecordVersionsTable {
  version: number;
  connection_id: string;
  data_type: string;
  /** Records in the version; null while it is written. */
  records: number | null;
  /** 1 when every record's document is the version's own, at `version * 2^32 + position`. */
  dense: number;
}

/** Narrow rows of a version being written from records in any order or from changes, before they are ordered. */
export interface RecordStagingTable extends RecordFieldColumns {
  version: number;
  /** The sorted run (see staging-runs.ts) and the row's place in it: ascending record id, then arrival. */
  run: number;
  idx: number;
  record_id: string;
  /** The record's position in the previous version; null when it is new. */
  prev_position: number | null;
  doc_key: number | bigint | string;
  content_hash: string;
  modified_date: string;
  is_deleted: number;
}

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

/** One write (create, update or delete of a record) sent to a connection's platform. */
export interface PushOperationsTable {
  seq: Generated<number>;
  /** The pushOperationKey. */
  id: string;
  client_id: string;
  company_id: string;
  connection_id: string;
  data_type: string;
  /** Create | Update | Delete */
  operation: string;
  /** The record written: the path's id for updates and deletes, the platform's new id once a create succeeds. */
  record_id: string | null;
  /** Pending | Success | Failed | TimedOut */
  status: string;
  requested: string;
  completed: string | null;
  timeout_minutes: number | null;
  /** 1 to queue a sync of the data type when the write succeeds (allowSyncOnPushComplete). */
  allow_sync: number;
  /** 1 when an update may change a record the platform would otherwise refuse to (a paid or void document). */
  force_update: number;
  idempotency_key: string | null;
  /** SHA-256 of method, path and body: a reused Idempotency-Key with a different request is refused. */
  request_hash: string | null;
  /** JSON text of the record as sent; null for deletes. */
  data: string | null;
  /** JSON text of the PushOperation resource. */
  doc: string;
}

/**
 * A record the Sandbox platform holds because it was written to it: it overrides (or deletes) the generated
 * record with the same id, or adds a new one, in every later sync.
 */
export interface PlatformWritesTable {
  seq: Generated<number>;
  company_id: string;
  connection_id: string;
  data_type: string;
  record_id: string;
  deleted: number;
  /** JSON text of the record in the platform's wire shape (SourceRecord.data); null when deleted. */
  doc: string | null;
  source_modified_date: string;
}

export interface WebhookConsumersTable {
  id: string;
  client_id: string;
  url: string;
  disabled: number;
  /** JSON array of event type names. */
  event_types: string;
  /** JSON array of `tagKey:tagValue`, or null for every company. */
  company_tags: string | null;
  /** `whsec_<base64>`: signs every delivery; shown once, when the consumer is created. */
  secret: string;
  created: string;
  failing_since: string | null;
}

/** An event, recorded in the transaction of the change that caused it. */
export interface WebhookEventsTable {
  id: string;
  client_id: string;
  event_type: string;
  company_id: string | null;
  generated: string;
  body: string;
}

/** One event on its way to one consumer. */
export interface WebhookDeliveriesTable {
  /** `msg_...`, sent as `webhook-id`. */
  id: string;
  event_id: string;
  consumer_id: string;
  client_id: string;
  /** pending | delivered | failed (retries exhausted) | dropped (consumer disabled or deleted) */
  status: string;
  attempts: number;
  next_attempt: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created: string;
  delivered: string | null;
}

/** Uploaded files and processed upload sessions (migration 0009). */
export interface UploadsTable {
  seq: Generated<number>;
  id: string;
  /** 'file': an uploaded file; 'session': the records of a processed upload session; 'pending': read on the Link page, not yet confirmed. */
  kind: 'file' | 'session' | 'pending';
  client_id: string;
  company_id: string;
  connection_id: string;
  file_name: string;
  /** The connection's source type (Codat's File.sourceType). */
  source_type: string;
  content_type: string;
  size: number;
  uploaded: string;
  content: Uint8Array;
  /** The statement format, for a statement file. */
  format: string | null;
  /** JSON: the statements read from a statement file, or a session's `{dataType, records}`. */
  parsed: string | null;
  /** A pending upload's batch (the Link page's preview token). */
  batch: string | null;
}

/** Records made of an uploaded file, in chunks (JSON lines). */
export interface UploadChunksTable {
  upload_id: string;
  chunk: number;
  body: string;
}

export interface UploadConfigurationsTable {
  connection_id: string;
  account_id: string;
  client_id: string;
  company_id: string;
  /** JSON text of the BankStatementUploadConfiguration. */
  doc: string;
  created: string;
}

export interface UploadSessionsTable {
  /** The session's dataset: the pull operation that ingests it. */
  id: string;
  client_id: string;
  company_id: string;
  connection_id: string;
  data_type: string;
  /** 'Active', then 'Processed', 'Cancelled' or 'Expired'. */
  status: string;
  started: string;
  last_activity: string;
  /** Pages uploaded so far, and the length of their JSON text (JavaScript string length). */
  pages: number;
  characters: number;
}

export interface UploadSessionPagesTable {
  session_id: string;
  page: number;
  /** JSON text of the page as uploaded. */
  body: string;
}

/** A signed-in portal browser (migration 0013); the cookie holds the token, the row its SHA-256. */
export interface PortalSessionsTable {
  token_hash: string;
  client_id: string;
  api_key_id: string;
  csrf_token: string;
  created: string;
  expires: string;
}

/** API requests and rate-limit refusals per client and UTC hour (`2026-11-25T06`), for the portal's usage chart. */
export interface ClientUsageHoursTable {
  client_id: string;
  hour: string;
  requests: number;
  refusals: number;
}
