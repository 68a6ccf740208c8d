import type { DataType } from '../codat-model/data-types.js';
import type { AuthorizationKind, LinkContext, LinkResult, OAuth2Flow } from './connector-authorization.js';
import type { FileIntake, UploadSessionType } from './connector-files.js';
import type { DataTypeSource } from './connector-reads.js';
import type { WriteModel } from './connector-writes.js';
import type { PlatformDeclaration, PlatformHooks } from './platform-declaration.js';

// Every part of the interface is importable from here: reads, writes, authorization and files.
export type * from './connector-reads.js';
export * from './connector-writes.js';
export type * from './connector-authorization.js';
export * from './connector-files.js';

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

/** A platform behind the connector interface: adding a platform adds one of these, not routes. */
export interface Connector {
  info: PlatformInfo;
  /** The platform as data: identity, authorization, transport and what it does with each data type (platform-declaration.ts). */
  declaration: PlatformDeclaration;
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
  /** The code for what the declaration cannot say, exactly the hooks it names (platformConnector checks it). */
  hooks?: PlatformHooks;
  /** The data types this platform provides; any other data type is "not supported by platform". */
  dataTypes: ReadonlyMap<DataType, DataTypeSource>;
  /**
   * Reads are repeatable: what a data type answers is a function of the connection's settings, the epoch and what the
   * service keeps for the platform (its writes, its uploads) alone (the Sandboxes). A sync that would read exactly
   * what the current version was read from completes on that version instead of writing a copy of it.
   */
  repeatableReads?: boolean;
  /** A made-up platform (the Sandboxes): the emulator's authorization scenarios apply to it (docs/emulator.md). */
  sandbox?: boolean;
  /** The data types this platform accepts writes of; absent or empty for a read-only platform. */
  writes?: ReadonlyMap<DataType, WriteModel>;
  /** For `authorization.kind: 'files'`: how uploaded files are read. */
  files?: FileIntake;
  /** For `authorization.kind: 'files'`: the data types Codat's upload sessions take. */
  uploadSessions?: readonly UploadSessionType[];
}
