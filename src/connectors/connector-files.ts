import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { DataType } from '../codat-model/data-types.js';

// A platform whose data is uploads: the files it takes and what it keeps of them, the uploads a read is handed,
// and the data types of Codat's upload sessions.

/** One upload the service keeps for a connection: a file, or the records of a processed upload session. */
export interface UploadedItem {
  kind: 'file' | 'session';
  id: string;
  name: string;
  /** When it was uploaded (ISO-8601 UTC). */
  uploaded: string;
  /** A file: what the platform's intake derived from it when it was accepted (JSON text). A session: `{dataType, records}`. */
  parsed: string | null;
  /** A file: the records its intake made of it (AcceptedFile.records), chunk by chunk, in order. */
  records(): AsyncIterable<string>;
}

/** The connection's uploads as of the sync's start, oldest first. */
export interface UploadsReader {
  list(): AsyncIterable<UploadedItem>;
}

/** A file as the upload endpoint received it. */
export interface IncomingFile {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/**
 * One statement of an uploaded file as the upload answers it (and documents it) and the Link page shows it before
 * import: one schema, the type read from it.
 */
export const StatementReport = Type.Object({
  account: Type.String({ description: 'What identifies the account in the file: its IBAN, or bank code and number.' }),
  iban: Type.Union([Type.String(), Type.Null()], { description: 'The IBAN, where the file gives one.' }),
  currency: Type.String({ description: 'The currency of the account.' }),
  reference: Type.Union([Type.String(), Type.Null()], { description: "The statement's own number or id, where it has one." }),
  from: Type.String({ format: 'date', description: 'The first day the statement covers.' }),
  to: Type.String({ format: 'date', description: 'The last day the statement covers.' }),
  transactions: Type.Integer({ minimum: 0, description: 'How many transactions it holds.' }),
  openingBalance: Type.Union([Type.Number(), Type.Null()], {
    description: 'null where the file states none (OFX: only a ledger balance).',
  }),
  closingBalance: Type.Union([Type.Number(), Type.Null()], { description: 'null where the file states none.' }),
  reconciles: Type.Boolean({
    description: 'Whether opening + the transactions = closing, exactly (true when there is no opening balance to contradict it).',
  }),
  warning: Type.Optional(
    Type.String({ description: 'What there is to say of it: that it does not reconcile, or what had to be assumed.' }),
  ),
});

export type StatementReport = Static<typeof StatementReport>;

/** What a platform's intake keeps of an accepted file, and what the upload answers about it. */
export interface AcceptedFile {
  format: string;
  /** JSON text kept with the file and handed back to reads (see UploadedItem.parsed). */
  parsed: string;
  /** The upload answer's entry for the file (beside its name and size): its format and, for statements, what they hold. */
  report: { format: string; statements?: StatementReport[] };
  /** Problems that do not refuse the file (e.g. a statement that does not reconcile). */
  warnings: string[];
  /**
   * Records made of the file, kept beside it in chunks (each a text of about a megabyte) and handed back to reads
   * (UploadedItem.records) one chunk at a time: a large file's records never have to be in memory at once.
   * `uploaded` is when the file was uploaded.
   */
  records?(uploaded: string): Iterable<string>;
}

/**
 * How a platform whose data is uploads takes files (`POST …/connections/{connectionId}/files`): it reads each
 * file and accepts it, or refuses the whole upload with a FileRefused (connector-error.ts) naming the file and
 * where it breaks. `fields` are the request's other parts (e.g. a CSV `mapping`).
 */
export interface FileIntake {
  accept(files: readonly IncomingFile[], fields: Readonly<Record<string, string>>): AcceptedFile[];
}

/** A data type a company can upload pages of through Codat's bank statement upload sessions, and its record schema. */
export interface UploadSessionType {
  dataType: DataType;
  /** Schema of one uploaded record. */
  schema: TSchema;
  /** The page shape: one record per upload, or `{results: [...]}` pages. */
  page: 'record' | 'results';
  /** The field naming the configured account (`id` of an account, `accountId` of a transaction). */
  accountField: string;
}
