import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { Connector, ReadContext, TokenSource, WriteContext } from '../connectors/connector.js';
import { loadWritten } from '../platform-data/platform-writes.store.js';
import { dataSetOf } from '../syncs/data-sets.store.js';
import { epochOf } from '../syncs/syncs.store.js';
import { clockFor, currentBusinessTime } from '../lib/clock.js';
import type { DataType } from '../codat-model/data-types.js';
import { keepsWritesBesideService } from '../platform-data/kept-data.js';
import type { CredentialsStore } from '../connections/credentials.store.js';
import { oauthTokenSource } from '../connections/oauth-tokens.js';

/** A connection as a connector reaches its platform: its settings and (unsealed) credentials. */
export interface PlatformConnection {
  id: string;
  clientId: string;
  settings: Record<string, unknown>;
  credentials: Record<string, unknown> | null;
  allowPrivate: boolean;
  /** An OAuth2 platform's access token (see oauth-tokens.ts). */
  tokens?: TokenSource;
}

/** A connection row as the platform is reached through it: its settings (JSON) and its sealed credentials. */
export async function platformConnection(
  db: Kysely<Database>,
  connector: Connector,
  connection: { id: string; client_id: string; settings: string | null },
  options: { credentials: CredentialsStore; allowPrivate?: boolean },
): Promise<PlatformConnection> {
  const allowPrivate = options.allowPrivate ?? false;
  return {
    id: connection.id,
    clientId: connection.client_id,
    settings: JSON.parse(connection.settings ?? '{}') as Record<string, unknown>,
    credentials: await options.credentials.load(db, connection.client_id, connection.id),
    allowPrivate,
    tokens: connector.oauth2
      ? oauthTokenSource(
          { db, credentials: options.credentials, allowPrivate },
          { clientId: connection.client_id, connectionId: connection.id },
          connector.oauth2,
        )
      : undefined,
  };
}

/**
 * What a connector is given to read or look up a connection's records of one type as the platform holds them now.
 * `signal`: aborted when the caller stops waiting (a push job handed back); by default never.
 */
export async function readContext(
  db: Kysely<Database>,
  connector: Connector,
  connection: PlatformConnection,
  dataType: DataType,
  signal: AbortSignal = new AbortController().signal,
): Promise<ReadContext> {
  const written = keepsWritesBesideService(connector, dataType)
    ? (await loadWritten(db, connection.clientId, connection.id, dataType)).written
    : [];
  // The platform's data stands where the next sync of the type would read it.
  const onClock =
    currentBusinessTime()?.clockId === undefined ? undefined : clockFor({ clientId: connection.clientId }).now().toISOString();
  const dataSet = await dataSetOf(db, connection.clientId, connection.id, dataType);
  const epoch = await epochOf(db, connection.clientId, { connectionId: connection.id, dataType }, dataSet, onClock);
  return {
    settings: connection.settings,
    credentials: connection.credentials,
    epoch,
    cursor: null,
    written,
    allowPrivate: connection.allowPrivate,
    signal,
    ...(connection.tokens ? { tokens: connection.tokens } : {}),
  };
}

/**
 * What a write is sent with: the platform read as it is now for the written type, and lookups of its records of any
 * type (undefined where the platform has no lookup: the write is then checked against the last sync only). Each
 * type's read context is built once per write, however many lookups the checks make of it.
 */
export async function writeContext(
  db: Kysely<Database>,
  connector: Connector,
  connection: PlatformConnection,
  dataType: DataType,
  signal: AbortSignal,
): Promise<WriteContext> {
  const contexts = new Map<DataType, Promise<ReadContext>>();
  const contextOf = (type: DataType) => {
    let context = contexts.get(type);
    if (!context) contexts.set(type, (context = readContext(db, connector, connection, type, signal)));
    return context;
  };
  return {
    ...(await contextOf(dataType)),
    async find(type, ids) {
      const source = connector.dataTypes.get(type);
      if (!source) return new Map();
      if (!source.find) return undefined;
      return source.find(await contextOf(type), ids);
    },
  };
}
