import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import type { ApiKeysStore } from '../api-keys/api-keys.store.js';
import { hashApiKey, hashesEqual, parseBasicAuthorization } from '../api-keys/key-material.js';
import '../clients/caller.js';
import { getPlan, isAccountExpired } from '../clients/plans.js';
import { rateLimitHeaders, type RateLimiter } from './rate-limiter.js';
import { MAINTENANCE_RETRY_AFTER_SECONDS, type MaintenanceWatch } from './maintenance.js';
import { clockFor, runInBusinessTime, type BusinessTime } from '../lib/clock.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's business time when it is not real time (an emulator test clock): chosen by the guard. */
    businessTime?: BusinessTime;
  }
  interface FastifyContextConfig {
    /** No API key needed (health, documentation, the hosted Link page). */
    public?: boolean;
    /** Answers even during maintenance (health checks). */
    health?: boolean;
    /** An emulator control: answers after the Free trial has expired and counts against no limit (docs/emulator.md). */
    emulatorControl?: boolean;
  }
}

/**
 * The 401's `error`: Codat answers a bare "Unauthorized"; this one also says how a key is sent, the mistake a
 * newcomer makes (a raw key, or `Bearer`). Same status, body shape and code (see docs/decisions.md).
 */
export const UNAUTHORIZED_MESSAGE = 'Unauthorized: send the API key as Authorization: Basic <base64(key)>';

/**
 * Runs before every route, in this order: maintenance (503), authentication (401, 403 for an outdated key),
 * account expiry (402), then rate limits (429). Unknown paths skip authentication so they answer 404/405.
 */
export function createRequestGuard(deps: {
  apiKeys: ApiKeysStore;
  rateLimiter: RateLimiter;
  maintenance: MaintenanceWatch;
  /** The business time of a request of this client, when not real time (the emulator's clocks); checks below read it. */
  businessTime?: (request: FastifyRequest, clientId: string) => Promise<BusinessTime | undefined>;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => clockFor({}).now());
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const config = request.routeOptions.config ?? {};
    if (deps.maintenance.isOn() && !config.health) {
      throw new ApiError(503, 'Service Unavailable: Ledgerport is temporarily offline for maintenance; please retry later.', {
        headers: { 'Retry-After': String(MAINTENANCE_RETRY_AFTER_SECONDS) },
      });
    }
    if (config.public || request.is404) return;

    const key = parseBasicAuthorization(request.headers.authorization);
    const hash = key === undefined ? undefined : hashApiKey(key);
    const owner = hash === undefined ? undefined : await deps.apiKeys.findOwner(hash);
    if (!owner || !hash || !hashesEqual(owner.keyHash, hash)) {
      throw new ApiError(401, UNAUTHORIZED_MESSAGE, { headers: { 'WWW-Authenticate': 'Basic realm="Ledgerport"' } });
    }
    const time = await deps.businessTime?.(request, owner.client.id);
    request.businessTime = time;
    // The guard runs before any business time is entered, so `now` is the system's: a key's expiry, a security
    // deadline, is checked against it whatever clock the request runs on; the account's age against the request's.
    const real = now();
    const at = time?.clock.now() ?? real;
    if (owner.expiresAt !== null && Date.parse(owner.expiresAt) <= real.getTime()) {
      throw new ApiError(403, `Forbidden: API key ${owner.keyId} is outdated (it expired at ${owner.expiresAt}); use a current key.`);
    }
    const client = owner.client;
    if (!config.emulatorControl && isAccountExpired(getPlan(client.plan), client.createdAt, at)) {
      throw new ApiError(402, 'Payment Required', { validation: [{ message: 'Account expired.' }] });
    }
    request.client = client;
    // The emulator's controls count against no limit: a client whose quota is spent on a frozen day can still advance.
    if (config.emulatorControl) return;
    // In the request's business time: the quota's day is the clock's, and so are the quota events' dates. The quota is
    // the client's, whatever company the path names: its window's end stays with the clock, not with that company.
    const consume = () => deps.rateLimiter.consume(client, time && { at, clockId: time.clockId });
    const state = await (time ? runInBusinessTime({ ...time, companyId: undefined }, consume) : consume());
    if (state) reply.headers(rateLimitHeaders(state));
  };
}
