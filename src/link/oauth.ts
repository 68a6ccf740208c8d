import { insertOAuthState, pendingOAuthState, takeOAuthState, type OAuthStateRow } from './oauth-states.store.js';
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { OAuth2Flow, OrganisationChoice } from '../connectors/connector.js';
import type { CredentialsStore } from '../connections/credentials.store.js';
import type { CustomParams } from './custom-params.js';

/** How long an end user may take at the platform's consent page. */
const STATE_TTL_MS = 10 * 60_000;

/** The one address every OAuth platform sends the end user back to (operators register it with each vendor). */
export const OAUTH_CALLBACK_PATH = '/link/oauth/callback';

export interface OAuthAttempt {
  clientId: string;
  companyId: string;
  connectionId: string;
  codeVerifier: string;
  custom: CustomParams;
}

/**
 * Starts an OAuth2 link attempt: a random `state` (what ties the platform's redirect back to this connection, and
 * stops a forged one) and a PKCE verifier are kept for 10 minutes; returns the platform's consent address.
 */
export async function startOAuth(
  db: Kysely<Database>,
  flow: OAuth2Flow,
  publicUrl: string,
  attempt: Omit<OAuthAttempt, 'codeVerifier'>,
  now: Date,
): Promise<string> {
  const state = randomBytes(32).toString('base64url');
  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  await insertOAuthState(
    db,
    {
      state,
      client_id: attempt.clientId,
      company_id: attempt.companyId,
      connection_id: attempt.connectionId,
      code_verifier: codeVerifier,
      custom: JSON.stringify([...attempt.custom]),
      expires: new Date(now.getTime() + STATE_TTL_MS).toISOString(),
      pending: null,
    },
    now.toISOString(),
  );
  return flow.authorizeUrl({ state, redirectUri: `${publicUrl}${OAUTH_CALLBACK_PATH}`, codeChallenge });
}

/** Takes the attempt a callback's `state` names, once: a replayed, unknown or expired state finds nothing. */
export async function takeOAuthAttempt(db: Kysely<Database>, state: string, now: Date): Promise<OAuthAttempt | undefined> {
  if (!state) return undefined;
  const row = await takeOAuthState(db, state, false);
  if (!row || row.expires < now.toISOString()) return undefined;
  return attemptOf(row);
}

function attemptOf(row: OAuthStateRow): OAuthAttempt {
  return {
    clientId: row.client_id,
    companyId: row.company_id,
    connectionId: row.connection_id,
    codeVerifier: row.code_verifier,
    custom: new Map(JSON.parse(row.custom) as [string, string][]),
  };
}

/**
 * Keeps a consent that covers several organisations (its tokens sealed) until the end user picks one; returns the
 * random key the choice page is reached by. Like an attempt, it lasts 10 minutes and is taken once.
 */
export async function keepOrganisationChoice(
  db: Kysely<Database>,
  credentials: CredentialsStore,
  attempt: OAuthAttempt,
  choice: OrganisationChoice,
  now: Date,
): Promise<string> {
  const state = randomBytes(32).toString('base64url');
  await insertOAuthState(
    db,
    {
      state,
      client_id: attempt.clientId,
      company_id: attempt.companyId,
      connection_id: attempt.connectionId,
      code_verifier: '',
      custom: JSON.stringify([...attempt.custom]),
      expires: new Date(now.getTime() + STATE_TTL_MS).toISOString(),
      pending: credentials.sealFor(attempt.connectionId, choice),
    },
    now.toISOString(),
  );
  return state;
}

/** The consent waiting for a choice under this key: read (`take: false`, to show the choice) or taken once. */
export async function organisationChoice(
  db: Kysely<Database>,
  credentials: CredentialsStore,
  key: string,
  now: Date,
  take: boolean,
): Promise<{ attempt: OAuthAttempt; choice: OrganisationChoice } | undefined> {
  if (!key) return undefined;
  const row = take ? await takeOAuthState(db, key, true) : await pendingOAuthState(db, key);
  if (!row || row.pending === null || row.expires < now.toISOString()) return undefined;
  return { attempt: attemptOf(row), choice: credentials.openFor(row.connection_id, row.pending) as OrganisationChoice };
}
