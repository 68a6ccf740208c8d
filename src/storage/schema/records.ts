// The record layout (src/records/): documents, one narrow index row per record of a version, the versions, and
// staging.

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
  /** What the reports read of every record (record-fields.ts, KEPT_FIELDS) as JSON; null for other data types. */
  f_kept: string | null;
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

/** What a report keeps of one complete version (its digest, records/version-digests.ts), in pieces. */
export interface VersionDigestsTable {
  version: number;
  /** Whose digest: 'aged' (the aged reports'). */
  kind: string;
  chunk: number;
  bytes: Uint8Array;
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
