import type { RateCounters } from './rate-counters.js';
import { ApiError } from '../http/api-error.js';
import type { Client, ClientsStore } from '../clients/clients.store.js';
import { getPlan } from '../clients/plans.js';
import { realTime } from '../lib/clock.js';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window ends. */
  reset: Date;
}

export const TOO_MANY_REQUESTS = 'You have made too many requests in a given amount of time; please retry later.';

/**
 * Per-client daily quota and per-second burst limit. The counters are shared (the store, or Redis), so every
 * process enforces the same limit: N API processes together let through what one would.
 */
export function createRateLimiter(deps: {
  counters: RateCounters;
  clients: ClientsStore;
  /** Called once per window, by the request whose count first exceeds the daily quota (webhook events). */
  onQuotaReached?: (event: { clientId: string; dailyQuota: number; reset: Date }) => Promise<void>;
  /** Called for each refused request, with the limit it exceeded (metrics). */
  onRefused?: (reason: 'burst' | 'daily_quota') => void;
  now?: () => Date;
}) {
  const now = deps.now ?? realTime.now;
  return {
    /**
     * Counts one request against the client's limits. Returns the state to report in headers (the daily
     * quota when there is one, else the burst limit), or undefined when the client has no limit.
     * Throws 429 when a limit is exceeded. The burst limit counts real seconds; the daily quota counts the days of
     * `business` (the request's business time: an emulator test clock's days, each clock's windows its own).
     */
    async consume(client: Client, business?: { at: Date; clockId?: string }): Promise<RateLimitState | undefined> {
      const at = now();
      let reported: RateLimitState | undefined;
      if (client.burstLimit !== null) {
        const second = Math.floor(at.getTime() / 1000);
        const reset = new Date((second + 1) * 1000);
        const used = await deps.counters.hit(client.id, `sec:${second}`, reset);
        reported = { limit: client.burstLimit, remaining: Math.max(0, client.burstLimit - used), reset };
        if (used > client.burstLimit) {
          deps.onRefused?.('burst');
          throw tooMany(reported, at);
        }
      }
      const quota = await dailyQuotaOf(deps.clients, client);
      if (quota !== undefined) {
        const today = business?.at ?? at;
        const day = today.toISOString().slice(0, 10);
        const reset = new Date(`${day}T00:00:00.000Z`);
        reset.setUTCDate(reset.getUTCDate() + 1);
        // A clock's day may last any real time (it stands still between advances): its counter is kept 25 real hours
        // past its last request; each clock's days have windows of their own.
        const expires = business ? new Date(at.getTime() + 25 * 3_600_000) : reset;
        const window = business?.clockId ? `day:${business.clockId}:${day}` : `day:${day}`;
        const used = await deps.counters.hit(client.id, window, expires);
        reported = { limit: quota, remaining: Math.max(0, quota - used), reset };
        // The counter is atomic, so exactly one request per window sees quota + 1.
        if (used === quota + 1) await deps.onQuotaReached?.({ clientId: client.id, dailyQuota: quota, reset });
        if (used > quota) {
          deps.onRefused?.('daily_quota');
          throw tooMany(reported, today);
        }
      }
      return reported;
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The client's daily request quota: the operator's override, else its plan's default; undefined for none. */
export async function dailyQuotaOf(clients: ClientsStore, client: Client): Promise<number | undefined> {
  if (client.dailyQuota !== null) return client.dailyQuota;
  const plan = getPlan(client.plan);
  if (plan.defaultDailyQuota(0) === undefined) return undefined;
  return plan.defaultDailyQuota(await clients.countLinkedCompanies(client.id));
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-Rate-Limit-Limit': String(state.limit),
    'X-Rate-Limit-Remaining': String(state.remaining),
    'X-Rate-Limit-Reset': state.reset.toISOString(),
  };
}

function tooMany(state: RateLimitState, at: Date): ApiError {
  const retryAfter = Math.max(1, Math.ceil((state.reset.getTime() - at.getTime()) / 1000));
  return new ApiError(429, TOO_MANY_REQUESTS, { headers: { ...rateLimitHeaders(state), 'Retry-After': String(retryAfter) } });
}
