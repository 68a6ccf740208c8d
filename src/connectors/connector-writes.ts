import type { TSchema } from '@sinclair/typebox';
import type { DataType } from '../codat-model/data-types.js';
import type { ReadContext } from './connector-reads.js';

// What a connector writes: the data types a platform accepts writes of, and how each write is checked and sent.

/** What a write does to a record. */
export type WriteOperation = 'Create' | 'Update' | 'Delete';

/** The HTTP method of each write operation on `.../push/{dataType}` (Codat's feature types are these, capitalised). */
export const WRITE_METHOD: Readonly<Record<WriteOperation, 'POST' | 'PUT' | 'DELETE'>> = {
  Create: 'POST',
  Update: 'PUT',
  Delete: 'DELETE',
};

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
  /**
   * Rules the schema cannot say (e.g. a journal entry must balance), checked before the write is accepted;
   * `operation` is `Create` or `Update`.
   */
  check?(record: Record<string, unknown>, operation: WriteOperation): { itemId: string; message: string }[];
  /**
   * Rules only the platform's data can tell (the journal has a commodity for the currency), checked against the
   * platform itself before the write is accepted, once `check` passes: the problems make the request a 400 and
   * nothing is sent. Throws a ConnectorError when the platform cannot be asked.
   */
  checkOnPlatform?(
    ctx: ReadContext,
    record: Record<string, unknown>,
    operation: WriteOperation,
  ): Promise<{ itemId: string; message: string }[]>;
  /**
   * Sends the write to a platform that stores it itself, and returns the record as the platform now holds it.
   * Absent: the platform keeps its data beside the service (the Sandboxes), which stores the write for it.
   * Throws a ConnectorError when the platform refuses (`invalid`) or cannot be reached.
   */
  submit?(ctx: ReadContext, write: PlatformWrite): Promise<{ recordId: string; record: Record<string, unknown> | null }>;
}

/** One write as a platform that stores it itself is sent it (WriteModel.submit). */
export interface PlatformWrite {
  operation: WriteOperation;
  /** The record written to (Update, Delete); null for a Create. */
  recordId: string | null;
  /** The record as written; null for a Delete. */
  record: Record<string, unknown> | null;
  /** Unique to the write (its push operation's id): sent as the platform's idempotency key where it has one. */
  key: string;
}
