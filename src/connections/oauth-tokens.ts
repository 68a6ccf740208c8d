import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { OAuth2Flow, OAuthTokens, TokenSource } from '../connectors/connector.js';
import { ConnectorError, isConnectorError } from '../connectors/connector-error.js';
import type { CredentialsStore } from './credentials.store.js';
import { clockFor, currentBusinessTime, runInBusinessTime, runInRealTime, realTime } from '../lib/clock.js';

/** A token with less than this left is refreshed before it is handed out (a page read never starts on a dying token). */
export const REFRESH_AHEAD_MS = 5 * 60_000;
/**
 * How long a process may hold the right to refresh; a process that died holding it is taken over after this. Longer
 * than a token request can take (two attempts, each cut off within a minute).
 */
const LEASE_MS = 150_000;
/** How often a process waiting for another's refresh looks again. */
const POLL_MS = 50;
/** The cooldown after the first refresh the platform did not answer; it doubles with each one after, up to the cap. */
const COOLDOWN_MS = 30_000;
const COOLDOWN_CAP_MS = 30 * 60_000;

export interface TokenSourceDeps {
  db: Kysely<Database>;
  credentials: CredentialsStore;
  allowPrivate: boolean;
  signal?: AbortSignal;
  now?: () => Date;
}

/**
 * The access token of one OAuth2 connection, shared by every process and thread that uses it. The tokens live
 * sealed in `connection_credentials`; a refresh is settled there:
 * 1. a token with more than REFRESH_AHEAD_MS left, and not the one the caller saw refused, is handed out as it is;
 * 2. otherwise the caller takes the refresh lease with one conditional update (only while the credentials are
 *    still the version it read and no one holds an unexpired lease), so exactly one caller refreshes;
 * 3. that caller calls the platform's token endpoint and saves the new tokens (a rotated refresh token among
 *    them) before using them, only while it still holds its lease; everyone else waits, reads them, and uses them;
 * 4. a refresh the platform did not answer starts a cooldown (30 s, doubling, at most 30 min) in which no one
 *    asks it again; `invalid_grant` (consent revoked) is `unauthorized`, and the sync marks the connection
 *    Deauthorized.
 */
export function oauthTokenSource(deps: TokenSourceDeps, target: { clientId: string; connectionId: string }, flow: OAuth2Flow): TokenSource {
  const { db, credentials } = deps;
  // Leases and cooldowns between processes: real time.
  const now = deps.now ?? realTime.now;
  // A token's expiry is stamped and compared in the business time of the work that made this source (a sync or a
  // write of a company on a test clock), which a writing thread's request for a token no longer carries: kept here.
  const time = currentBusinessTime();
  const inBusinessTime = <T>(work: () => Promise<T>) => (time ? runInBusinessTime(time, work) : runInRealTime(work));
  const businessNow = () => clockFor({ clientId: target.clientId }).now();
  // The tokens last read or refreshed: a token still good is handed out without reading and unsealing the row on
  // every request a sync makes (a page read asks for it each time).
  let known: OAuthTokens | undefined;
  return {
    accessToken: (rejected?: string) => inBusinessTime(() => accessToken(rejected)),
  };

  async function accessToken(rejected?: string): Promise<string> {
    // eslint-disable-next-line no-restricted-syntax -- real time: how long to wait on another process's refresh (a timeout)
    const waitUntil = Date.now() + LEASE_MS + 5_000;
    if (known && !due(known, rejected, businessNow())) return known.accessToken;
    for (;;) {
      deps.signal?.throwIfAborted();
      const state = await credentials.loadForRefresh(db, target.clientId, target.connectionId);
      if (!state) throw new ConnectorError('unauthorized', 'the connection holds no tokens; link it again');
      const tokens = state.credentials as OAuthTokens;
      const at = now();
      if (!due(tokens, rejected, businessNow())) {
        known = tokens;
        return tokens.accessToken;
      }
      if (!tokens.refreshToken)
        throw new ConnectorError('unauthorized', 'the platform refused the access token, and it cannot be refreshed');
      if (state.retryAfter && state.retryAfter > at.toISOString()) {
        throw new ConnectorError(
          'unavailable',
          `refreshing the access token failed ${state.failures} time(s) in a row; the next attempt is after ${state.retryAfter}`,
        );
      }
      const until = new Date(at.getTime() + LEASE_MS).toISOString();
      if (await credentials.claimRefresh(db, target.clientId, target.connectionId, state.sealed, at.toISOString(), until)) {
        const fresh = await refreshHeld(tokens, state.failures, until);
        if (fresh !== undefined) return fresh;
        // The lease ran out and another process refreshed meanwhile: its tokens are the ones kept; read them.
        continue;
      }
      // Another process is refreshing (or just did): the new tokens are read on the next look.
      // eslint-disable-next-line no-restricted-syntax -- real time: the timeout of waiting on another process's refresh
      if (Date.now() > waitUntil)
        throw new ConnectorError('unavailable', 'another process has been refreshing the access token for too long');
      await sleep(POLL_MS, undefined, { signal: deps.signal });
    }
  }

  /** Refreshes under the lease `until`; undefined when the lease was lost before the new tokens could be saved. */
  async function refreshHeld(tokens: OAuthTokens, failures: number, until: string): Promise<string | undefined> {
    let refreshed: OAuthTokens;
    try {
      refreshed = await flow.refresh({ credentials: tokens, allowPrivate: deps.allowPrivate, signal: deps.signal });
    } catch (err) {
      if (isConnectorError(err) && err.kind === 'unauthorized') {
        await credentials.releaseRefresh(db, target.clientId, target.connectionId);
        throw err;
      }
      const count = failures + 1;
      const retryAfter = new Date(now().getTime() + Math.min(COOLDOWN_CAP_MS, COOLDOWN_MS * 2 ** (count - 1))).toISOString();
      await credentials.releaseRefresh(db, target.clientId, target.connectionId, { retryAfter, failures: count });
      if (isConnectorError(err)) throw err;
      throw new ConnectorError('unavailable', `refreshing the access token failed: ${(err as Error).message}`);
    }
    // Saved before it is used: a platform that rotates refresh tokens has already forgotten the old one. A token
    // answered without an expiry has none (it is used until refused), not the old token's.
    const next: OAuthTokens = { ...tokens, ...refreshed };
    if (!refreshed.expiresAt) delete next.expiresAt;
    const saved = await credentials.saveRefreshed(db, target.clientId, target.connectionId, next, now().toISOString(), until);
    if (!saved) return undefined;
    known = next;
    return refreshed.accessToken;
  }
}

/** Whether a token must be refreshed before use: refused by the platform, or too close to its expiry. */
function due(tokens: OAuthTokens, rejected: string | undefined, at: Date): boolean {
  if (rejected !== undefined && tokens.accessToken === rejected) return true;
  if (!tokens.expiresAt) return false;
  return Date.parse(tokens.expiresAt) - at.getTime() < REFRESH_AHEAD_MS;
}
