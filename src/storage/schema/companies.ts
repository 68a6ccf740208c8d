import type { ColumnType, Generated } from 'kysely';

// Companies, their connections to platforms (with credentials and link attempts under way), and the platforms.

export interface CompaniesTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  name: string;
  created: string;
  /** Most recent completed sync of any of the company's connections. */
  last_sync: string | null;
  /** JSON of the company's own SyncSetting list; null to follow the client's. */
  sync_settings: string | null;
  /**
   * JSON text of the Company's own fields. `redirect`, `lastSync` and `dataConnections` are spliced in when
   * served, because they depend on the public address and on other tables.
   */
  doc: string;
}

export interface ConnectionsTable {
  id: string;
  client_id: string;
  company_id: string;
  platform_key: string;
  source_type: string;
  status: string;
  created: string;
  /** JSON text of the Connection without `linkUrl` (which depends on the public address). */
  doc: string;
  last_sync: string | null;
  /** JSON of the ConnectionSettings fixed at authorisation; null while PendingAuth. */
  settings: string | null;
}

/** An OAuth2 link attempt under way (see src/link/oauth.ts). */
export interface OAuthStatesTable {
  state: string;
  client_id: string;
  company_id: string;
  connection_id: string;
  code_verifier: string;
  /** JSON of the Link page's custom parameters, carried to the finish. */
  custom: string;
  expires: string;
  /** A consent covering several organisations, sealed, while the end user picks one (null: an attempt at the platform). */
  pending: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A connection's credentials, sealed (see src/secrets/sealed-box.ts); never served. */
export interface ConnectionCredentialsTable {
  connection_id: string;
  client_id: string;
  company_id: string;
  /** `v1.<key id>.<iv>.<tag>.<ciphertext>`, bound to the connection id. */
  sealed: string;
  updated: string;
  /** Until when one process holds the right to refresh the OAuth tokens in `sealed` (ISO-8601); null: nobody. */
  refresh_lease: ColumnType<string | null, string | null | undefined, string | null>;
  /** After a refresh the platform did not answer: the earliest time to try again. */
  refresh_retry_after: ColumnType<string | null, string | null | undefined, string | null>;
  /** Refreshes failed in a row (the cooldown doubles with each). */
  refresh_failures: ColumnType<number, number | undefined, number>;
}

/** The platforms this server has, copied from the connector registry at start so lists can query them. */
export interface IntegrationsTable {
  key: string;
  position: number;
  /** JSON text of the Integration resource without `logoUrl`. */
  doc: string;
}
