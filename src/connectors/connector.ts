import type { TSchema } from '@sinclair/typebox';
import type { DataType } from './data-types.js';
import type { PlatformInfo } from './registry.js';

/**
 * What a sync asks of a platform. Everything a connector returns must be a pure function of these
 * values, so a Sandbox company is reproducible and the same sync twice gives the same records.
 */
export interface FetchContext {
  /** Settings chosen when the connection was authorised (for the Sandbox: seed and size). */
  settings: ConnectionSettings;
  /**
   * How many syncs of this data type on this connection completed before this one (0 for the first).
   * The Sandbox's data moves with it: each later epoch adds, changes and deletes some records.
   */
  epoch: number;
}

/** Settings of a linked connection, fixed at authorisation. */
export interface ConnectionSettings {
  /** Seeds the Sandbox's generator. */
  seed: number;
  /** Number of invoices at epoch 0; other data types scale with it. */
  invoices: number;
  /** Day the company's data runs up to (`YYYY-MM-DD`); records are dated across several years before it. */
  asOf: string;
}

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
  /**
   * Every record of the data type at `ctx.epoch`, in ascending `id` order (plain string comparison), produced
   * lazily so memory stays flat at any size. Records deleted at the source are simply absent.
   */
  fetch(ctx: FetchContext): Iterable<SourceRecord>;
}

/** A platform behind the connector interface: adding a platform adds one of these, not routes. */
export interface Connector {
  info: PlatformInfo;
  /** The data types this platform provides; any other data type is "not supported by platform". */
  dataTypes: ReadonlyMap<DataType, DataTypeSource>;
  /** The data types this platform accepts writes of; absent or empty for a read-only platform. */
  writes?: ReadonlyMap<DataType, WriteModel>;
}

/** What a write does to a record. */
export type WriteOperation = 'Create' | 'Update' | 'Delete';

/** The HTTP method of each write operation on `.../push/{dataType}` (Codat's feature types are these, capitalised). */
export const WRITE_METHOD: Readonly<Record<WriteOperation, 'POST' | 'PUT' | 'DELETE'>> = { Create: 'POST', Update: 'PUT', Delete: 'DELETE' };

/** A field of a written record that names another record on the same platform (it must exist there). */
export interface ReferenceField {
  /** Path to the id; `*` stands for every element of an array, e.g. `['lineItems', '*', 'itemRef', 'id']`. */
  path: readonly string[];
  /** The data type the referenced record belongs to. */
  dataType: DataType;
}

/** A data type a platform accepts writes of, and how. */
export interface WriteModel {
  dataType: DataType;
  /** Operations the platform supports for this type (facts 1.8's table for the accounting types). */
  operations: readonly WriteOperation[];
  /**
   * TypeBox schema of a record as written: the served schema without the read-only `id`, `modifiedDate`,
   * `sourceModifiedDate` and `metadata`; optional fields also accept null (treated as absent).
   */
  schema: TSchema;
  /** Fields naming other records, checked for existence before (where synced) and when the platform processes the write. */
  references: readonly ReferenceField[];
}
