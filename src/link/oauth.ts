import { insertOAuthState, takeOAuthState } from './oauth-states.store.js';
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { OAuth2Flow } from '../connectors/connector.js';
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
    },
    now.toISOString(),
  );
  return flow.authorizeUrl({ state, redirectUri: `${publicUrl}${OAUTH_CALLBACK_PATH}`, codeChallenge });
}

/** Takes the attempt a callback's `state` names, once: a replayed, unknown or expired state finds nothing. */
export async function takeOAuthAttempt(db: Kysely<Database>, state: string, now: Date): Promise<OAuthAttempt | undefined> {
  if (!state) return undefined;
  const row = await takeOAuthState(db, state);
  if (!row || row.expires < now.toISOString()) return undefined;
  return {
    clientId: row.client_id,
    companyId: row.company_id,
    connectionId: row.connection_id,
    codeVerifier: row.code_verifier,
    custom: new Map(JSON.parse(row.custom) as [string, string][]),
  };
}
