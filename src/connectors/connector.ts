import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { DataType } from '../codat-model/data-types.js';

export type SourceType = 'Accounting' | 'Banking' | 'Commerce';

/** What the service knows about a platform before talking to it: identity and capabilities. */
export interface PlatformInfo {
  /** Four lower-case letters, e.g. `mqjo`. */
  key: string;
  name: string;
  sourceType: SourceType;
  dataTypes: readonly DataType[];
  /** Colour of the generated logo. */
  brandColour: string;
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

/**
 * An OAuth2 connection's access token as a connector uses it: refreshed ahead of its expiry, and at once when the
 * platform refuses it. Every process and thread shares one refresh (src/connections/oauth-tokens.ts): of several
 * asking at once, one calls the platform's token endpoint, saves the new tokens, and all use them.
 */
export interface TokenSource {
  /**
   * A current access token. `rejected`: the token the platform just answered 401 to, refreshed once before it is
   * handed out again. Throws `unauthorized` when the platform refuses the refresh (consent revoked) and
   * `unavailable` when it cannot be reached (and, for a while after, without asking it again).
   */
  accessToken(rejected?: string): Promise<string>;
}

/** What an OAuth2 connection keeps in its credentials; a platform may keep more beside them. */
export interface OAuthTokens {
  accessToken: string;
  /** Absent for tokens that do not expire or cannot be refreshed. */
  refreshToken?: string;
  /** When the access token stops working (ISO-8601). */
  expiresAt?: string;
  [more: string]: unknown;
}

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

/** A field of a credentials form: the Link page shows it, `PUT …/authorization` takes it in its body. */
export interface AuthorizationField {
  name: string;
  label: string;
  type: 'url' | 'text' | 'password';
  required: boolean;
  hint?: string;
}

/**
 * How a connection to the platform is authorised; the Link page and `PUT …/authorization` both follow it.
 * `none`: nothing to ask (the Sandboxes, whose body only picks a data set). `credentials`: a form of fields,
 * checked against the platform by `link`.
 */
/** One choice the end user makes when nothing needs signing in to (the Sandbox's data set size). */
export interface AuthorizationChoice {
  name: string;
  legend: string;
  default: string;
  options: readonly { value: string; label: string; hint?: string }[];
}

export type AuthorizationKind =
  /** `description`: the Link page's lead text; `{sourceType}`, `{company}` and `{brand}` are filled in. */
  | { kind: 'none'; description?: string; choice?: AuthorizationChoice }
  | { kind: 'credentials'; fields: readonly AuthorizationField[] }
  | { kind: 'oauth2' }
  /**
   * Nothing to sign in to: the connection is Linked once created, and its data is what the company uploads. The
   * Link page offers the upload; `accept` lists the file types its picker suggests; `choice` is one more form field
   * sent with the files (e.g. the CSV layout).
   */
  | { kind: 'files'; description?: string; accept?: string; choice?: AuthorizationChoice };

/**
 * An OAuth2 authorization code flow (with PKCE): the service keeps the state, sends the end user to the
 * platform's consent page, receives the platform's redirect on `GET /link/oauth/callback`, and hands the code
 * to `exchange`. The connector only says where to send the user and how to exchange the code.
 */
export interface OAuth2Flow {
  /** The platform's consent page for this attempt. */
  authorizeUrl(input: { state: string; redirectUri: string; codeChallenge: string }): string;
  /**
   * Exchanges the code for what the connection keeps (the tokens, as OAuthTokens, go in `credentials`); throws a
   * ConnectorError when refused. `query` is the rest of the platform's redirect (QuickBooks sends its `realmId`).
   * When the consent covers several of the platform's organisations, it answers an OrganisationChoice: the end
   * user picks one on a Link page.
   */
  exchange(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
    allowPrivate: boolean;
    query: Readonly<Record<string, string>>;
  }): Promise<LinkResult | OrganisationChoice>;
  /**
   * New tokens for the connection's refresh token (a platform that rotates it hands back a new one). Throws
   * `unauthorized` when the platform refuses it (`invalid_grant`: consent revoked or the token expired) and
   * `unavailable` when it does not answer.
   */
  refresh(input: { credentials: OAuthTokens; allowPrivate: boolean; signal?: AbortSignal }): Promise<OAuthTokens>;
  /** False while the platform is not configured (no client id): it is then hidden from `/integrations` and Link. */
  configured(): boolean;
}

/** A consent that covers several organisations: the end user picks the one this connection is for. */
export interface OrganisationChoice {
  /** Each organisation with the settings a connection to it keeps. */
  choices: readonly { id: string; name: string; settings: Record<string, unknown> }[];
  /** The tokens, the same whichever is chosen. */
  credentials: OAuthTokens;
}

/** What linking is given. */
export interface LinkContext {
  connectionId: string;
  /** The settings the connection kept from an earlier link, if any. */
  current: Record<string, unknown> | null;
  now: Date;
  /** Loopback, private and link-local platform addresses allowed (`CONNECTORS_ALLOW_PRIVATE=true`). */
  allowPrivate: boolean;
}

/** What a successful link keeps: settings (plain, e.g. an address) and credentials (sealed at rest). */
export interface LinkResult {
  settings: Record<string, unknown>;
  credentials: Record<string, unknown> | null;
}

/** A platform behind the connector interface: adding a platform adds one of these, not routes. */
export interface Connector {
  info: PlatformInfo;
  /** How a connection is authorised (default: none). */
  authorization?: AuthorizationKind;
  /**
   * Checks what the end user gave against the platform and returns what the connection keeps; throws a
   * ConnectorError (with the field it is about) when the platform cannot be reached or refuses. Absent for an
   * OAuth2 platform (its `oauth2` flow links it).
   */
  link?(input: Record<string, unknown>, ctx: LinkContext): Promise<LinkResult>;
  /** For `authorization.kind: 'oauth2'`. */
  oauth2?: OAuth2Flow;
  /**
   * Revokes the connection's access at the platform (its tokens), for a platform with an endpoint for that; called
   * after the connection or its company is deleted, best effort (a failure is logged, the deletion stands).
   */
  revoke?(ctx: { settings: Record<string, unknown>; credentials: Record<string, unknown>; allowPrivate: boolean }): Promise<void>;
  /** The data types this platform provides; any other data type is "not supported by platform". */
  dataTypes: ReadonlyMap<DataType, DataTypeSource>;
  /** The data types this platform accepts writes of; absent or empty for a read-only platform. */
  writes?: ReadonlyMap<DataType, WriteModel>;
  /** For `authorization.kind: 'files'`: how uploaded files are read. */
  files?: FileIntake;
  /** For `authorization.kind: 'files'`: the data types Codat's upload sessions take. */
  uploadSessions?: readonly UploadSessionType[];
}

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
