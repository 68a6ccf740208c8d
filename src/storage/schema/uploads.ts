import type { Generated } from 'kysely';

// Uploads: files and processed sessions, their records in chunks, statement upload configurations, and sessions under
// way.

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
