import type { Generated } from 'kysely';

// A client (the API's tenant) and what belongs to it alone: API keys, rate and usage counters, portal sessions.

export interface ClientsTable {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  /** Operator override of the plan's daily quota; null keeps the plan default. */
  daily_quota: number | null;
  /** Operator per-second burst limit; null means none. */
  burst_limit: number | null;
  /** JSON text of the Profile resource. */
  profile: string;
  /** Bumped in the same transaction as every change to the client's companies: keys the count cache. */
  companies_version: Generated<number>;
  /** JSON of the client's default SyncSetting list; null for the built-in defaults. */
  sync_settings: string | null;
}

export interface ApiKeysTable {
  id: string;
  client_id: string;
  name: string | null;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  created_at: string;
  expires_at: string | null;
}

export interface RateCountersTable {
  client_id: string;
  /** Window identifier, e.g. `day:2026-11-22` or `sec:1795310093`. */
  window: string;
  count: number;
  expires_at: string;
}

/** A signed-in portal browser (migration 0013); the cookie holds the token, the row its SHA-256. */
export interface PortalSessionsTable {
  token_hash: string;
  client_id: string;
  api_key_id: string;
  csrf_token: string;
  created: string;
  expires: string;
}

/** API requests and rate-limit refusals per client and UTC hour (`2026-11-25T06`), for the portal's usage chart. */
export interface ClientUsageHoursTable {
  client_id: string;
  hour: string;
  requests: number;
  refusals: number;
}
