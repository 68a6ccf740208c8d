import type { TSchema } from '@sinclair/typebox';
import type { DataType } from '../codat-model/data-types.js';
import type { TokenSource } from './connector-authorization.js';
import type { UploadsReader } from './connector-files.js';

// What a connector reads: the records a platform holds, a data type read under way, and what a sync hands a read.

/** One record as the platform holds it. */
export interface SourceRecord {
  /** Unique within the data type and connection. */
  id: string;
  /** When the platform last changed the record (ISO-8601 UTC, e.g. `2024-05-01T10:00:00Z`), or null. */
  sourceModifiedDate: string | null;
  /**
   * The record in Codat's wire shape for its data type, including `id` and `sourceModifiedDate` (same values
   * as above), and without `modifiedDate` and `metadata`, which the service adds.
   */
  data: Record<string, unknown>;
}

/**
 * A record this service wrote to a platform that keeps its data beside the service (the Sandboxes generate
 * their data, so the records written to them are stored by the service and handed back on every read).
 */
export interface WrittenRecord {
  id: string;
  deleted: boolean;
  /** The record as the platform now holds it; null when deleted. */
  record: SourceRecord | null;
}

/** How a read delivers a data type. */
export type ReadMode =
  /** Every record the platform holds; a record of the previous version that is missing was deleted. */
  | 'full'
  /** Records created or changed since the cursor, and the ids deleted since; everything else is unchanged. */
  | 'delta';

/** What a sync asks of a platform for one data type. */
export interface ReadContext {
  /** The connection's settings, fixed when it was linked (plain JSON; the platform's own shape). */
  settings: Record<string, unknown>;
  /** The connection's credentials, decrypted for this read only; null for a platform without any. */
  credentials: Record<string, unknown> | null;
  /** How many syncs of this data type on this connection completed before this one (0 for the first). */
  epoch: number;
  /** The cursor the previous completed sync handed back; null on a first sync or a forced full one. */
  cursor: string | null;
  /** Records written through the service to a platform that keeps them with the service (see WrittenRecord). */
  written: readonly WrittenRecord[];
  /** Loopback, private and link-local platform addresses allowed (`CONNECTORS_ALLOW_PRIVATE=true`). */
  allowPrivate: boolean;
  /** Aborted when the sync is stopped: a connector waiting on the network gives up. */
  signal: AbortSignal;
  /** What the company uploaded to the connection, for a platform whose data is uploads (`authorization.kind: 'files'`). */
  uploads?: UploadsReader;
  /** An OAuth2 platform's access token, kept fresh (see TokenSource); absent for other platforms. */
  tokens?: TokenSource;
}

/** One page as the platform answered it. */
export interface RecordPage {
  /** New and changed records (full mode: every record), in any order. */
  records: readonly SourceRecord[];
  /** Delta mode only: ids deleted at the source since the cursor. */
  deleted?: readonly string[];
}

/** A read under way: its mode, its pages, and the cursor for the next sync once the pages are exhausted. */
export interface DataTypeRead {
  /** What the pages are: a full snapshot, or changes since `ctx.cursor` (only possible when it is not null). */
  mode: ReadMode;
  /**
   * True when the records of all pages together come in strictly ascending `id` order (plain string
   * comparison) and without duplicates: the writer then streams them straight into place. Otherwise it stages
   * them and orders them itself.
   */
  ordered: boolean;
  pages: AsyncIterable<RecordPage>;
  /** The cursor for the next sync, read after the last page (null: the next sync reads in full). */
  nextCursor(): string | null;
  /** Problems with the data that did not stop the read (e.g. a statement that does not reconcile): the pull operation's `statusDescription`. */
  warnings?(): readonly string[];
}

/** A data type a platform provides: its wire schema and its records. */
export interface DataTypeSource {
  dataType: DataType;
  /** Name used in query errors: `Could not resolve property X on <typeName>`. */
  typeName: string;
  /**
   * TypeBox schema of a served record (including `id`, `modifiedDate`, `sourceModifiedDate`, `metadata`).
   * Business dates are `format: 'date-time'` with `'x-date-style': 'local'`; timestamps keep the default.
   */
  schema: TSchema;
  /** Starts reading the platform's records; may throw a ConnectorError before the first page. */
  read(ctx: ReadContext): DataTypeRead | Promise<DataTypeRead>;
  /**
   * The records with these ids as the platform holds them now (absent ids are left out): what a write is
   * checked against. A platform without a lookup leaves it out, and writes are checked against the last sync.
   */
  find?(ctx: ReadContext, ids: ReadonlySet<string>): Promise<Map<string, SourceRecord>>;
}
