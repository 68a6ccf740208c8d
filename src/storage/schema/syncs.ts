import type { Generated } from 'kysely';

// Syncs (pull operations) and the data sets they write: which version of a connection's data type readers see.

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
  /** A repeatable platform's key of what the current version was read from (migration 0018); null otherwise. */
  read_key: Generated<string | null>;
  /** The epoch the last completed sync read (migration 0020); null before one completed since. */
  read_epoch: Generated<number | null>;
}
