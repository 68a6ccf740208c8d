import type { Generated } from 'kysely';

// Writes to platforms: push operations, and the records the Sandbox holds because they were written to it.

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
