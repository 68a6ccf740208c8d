import type { TSchema } from '@sinclair/typebox';
import type { DataType } from '../codat-model/data-types.js';
import type { ReadContext, SourceRecord } from './connector-reads.js';

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
   * The service keeps what is written for the platform (`platform_writes`) and serves it beside the platform's own
   * records, as a Sandbox does; a live platform stores its writes itself.
   */
  keptByService?: boolean;
  /**
   * Sends the write to the platform and returns what it now holds: the record written, and for a platform whose
   * writes the service keeps, every record to keep. Throws WriteRefused with the problems the platform found, or a
   * ConnectorError when it refuses with a message (`invalid`) or cannot be reached.
   */
  submit(ctx: WriteContext, write: PlatformWrite): Promise<SubmittedWrite>;
}

/** What a write is sent with: a read of the platform as it is now, and lookups of its records of any type. */
export interface WriteContext extends ReadContext {
  /** The records with these ids the platform holds now, or undefined when it has no lookup for the type. */
  find(dataType: DataType, ids: ReadonlySet<string>): Promise<Map<string, SourceRecord> | undefined>;
}

/** One write as the platform is sent it (WriteModel.submit). */
export interface PlatformWrite {
  operation: WriteOperation;
  /** The record written to (Update, Delete), or a batch's account; null for a single Create. */
  recordId: string | null;
  /** The record as written; null for a Delete. */
  record: Record<string, unknown> | null;
  /** Unique to the write (its push operation's id): sent as the platform's idempotency key where it has one. */
  key: string;
  /** `forceUpdate=true` was sent: a document the platform holds as settled may change. */
  forceUpdate: boolean;
  /**
   * The records the write carries, as the platform stores them (one, or a batch's transactions in its order), each
   * with the id it asks for (null: the platform assigns one); null for a Delete.
   */
  records: { id: string | null; record: Record<string, unknown> }[] | null;
  /** The ids the records name, each with the field of the write that names it and its data type (each once). */
  references: { field: string; dataType: DataType; id: string }[];
  /** Ids the write gives records it creates (a batch's), each with its field: the platform must not hold them yet. */
  claimed: { field: string; id: string }[];
}

/**
 * Problems for the ids a write claims that the platform holds already (`holds` says which), each naming the field
 * that claims it, with the platform as validator.
 */
export function claimedIdsHeld(
  dataType: string,
  claimed: readonly { field: string; id: string }[],
  holds: (id: string) => boolean,
  validatorName: string,
): { itemId: string; message: string; validatorName: string }[] {
  return claimed
    .filter((c) => holds(c.id))
    .map((c) => ({ itemId: c.field, message: `The platform already has a ${dataType} record with id ${c.id}`, validatorName }));
}

/** What the platform holds once it took a write. */
export interface SubmittedWrite {
  /** The record written (a batch's account). */
  recordId: string;
  record: Record<string, unknown> | null;
  /** For a platform whose writes the service keeps: what it holds now of each record written (null: deleted). */
  kept?: { recordId: string; record: Record<string, unknown> | null }[];
  /** The records created or changed, for the operation's `changes`; by default the one written. */
  changed?: string[];
}
