import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import type { ApiKeysStore } from '../api-keys/api-keys.store.js';
import { hashApiKey, hashesEqual } from '../api-keys/key-material.js';
import { getPlan, isAccountExpired } from '../clients/plans.js';
import type { Client } from '../clients/clients.store.js';
import type { PortalSession, PortalSessionsStore } from './portal-sessions.store.js';
import { clockFor } from '../lib/clock.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in portal session, set by the portal's session hook. */
    portalSession?: PortalSession;
  }
  interface FastifyContextConfig {
    /** A portal route that needs no session (sign-in, assets). */
    portalPublic?: boolean;
  }
}

/** The session cookie: only a random token; the API key that signed in never reaches the browser. */
export const SESSION_COOKIE = 'lp_portal_session';
/** The sign-in form's CSRF token (double-submit: there is no session yet to hold it). */
export const SIGN_IN_COOKIE = 'lp_portal_sign_in';
/** How long a session lasts without signing in again. */
export const SESSION_HOURS = 12;

export const newToken = (): string => randomBytes(32).toString('base64url');
const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export function cookieOptions(secure: boolean, path: string, maxAgeSeconds: number) {
  return { path, httpOnly: true, sameSite: 'strict' as const, secure, maxAge: maxAgeSeconds };
}

export function createPortalSessions(deps: { sessions: PortalSessionsStore; apiKeys: ApiKeysStore; now?: () => Date }) {
  const now = deps.now ?? (() => clockFor({}).now());
  return {
    /** Checks the key as the API does, then opens a session on it; returns the cookie's token. */
    async signIn(apiKey: string): Promise<{ token: string; client: Client }> {
      const hash = hashApiKey(apiKey.trim());
      const owner = await deps.apiKeys.findOwner(hash);
      if (!owner || !hashesEqual(owner.keyHash, hash)) throw new ApiError(401, 'That API key is not valid.');
      const at = now();
      if (owner.expiresAt !== null && Date.parse(owner.expiresAt) <= at.getTime())
        throw new ApiError(403, `That API key expired at ${owner.expiresAt}; sign in with a current key.`);
      if (isAccountExpired(getPlan(owner.client.plan), owner.client.createdAt, at)) throw new ApiError(402, 'This account has expired.');
      await deps.sessions.deleteEnded(owner.client.id, at.toISOString());
      const token = newToken();
      await deps.sessions.insert({
        token_hash: tokenHash(token),
        client_id: owner.client.id,
        api_key_id: owner.keyId,
        csrf_token: newToken(),
        created: at.toISOString(),
        expires: new Date(at.getTime() + SESSION_HOURS * 3_600_000).toISOString(),
      });
      return { token, client: owner.client };
    },

    /** The live session of this cookie token: not expired, its key neither revoked nor expired, its account current. */
    async resolve(token: string | undefined): Promise<PortalSession | undefined> {
      if (!token || token.length > 100) return undefined;
      const at = now();
      const session = await deps.sessions.find(tokenHash(token), at.toISOString());
      if (!session) return undefined;
      if (session.keyExpiresAt !== null && Date.parse(session.keyExpiresAt) <= at.getTime()) return undefined;
      // An account that expires while signed in ends its sessions too, as its keys stop working on the API.
      if (isAccountExpired(getPlan(session.client.plan), session.client.createdAt, at)) return undefined;
      return session;
    },

    async signOut(token: string | undefined): Promise<void> {
      if (token) await deps.sessions.delete(tokenHash(token));
    },
  };
}

export type PortalSessions = ReturnType<typeof createPortalSessions>;

/** Whether the caller reads JSON (the chart data, or a script's request) rather than a page. */
export function wantsJson(request: FastifyRequest): boolean {
  if (request.url.startsWith('/portal/api/')) return true;
  const accept = request.headers.accept ?? '';
  const contentType = request.headers['content-type'] ?? '';
  return contentType.startsWith('application/json') || (accept.includes('application/json') && !accept.includes('text/html'));
}

/** The session of a request the hook let through. */
export function sessionOf(request: FastifyRequest): PortalSession {
  if (!request.portalSession) throw new Error('portal route without a session');
  return request.portalSession;
}

/** The 403 for a request without a session or with a wrong CSRF token (a page or the error body: see the scope's handler). */
export const forbidden = (why: string) => new ApiError(403, `Forbidden: ${why}`);

/** Sends a browser to the sign-in page, remembering where it was going. */
export function redirectToSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
  return reply.code(303).header('Cache-Control', 'no-store').redirect(`/portal/sign-in${next}`);
}

/** Only a path inside the portal is followed after sign-in (no open redirect). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/portal(\/[^\\]*)?$/.test(next) && !next.startsWith('//') ? next : '/portal/companies';
}
