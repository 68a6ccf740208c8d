import ipaddr from 'ipaddr.js';
import type { RateCounters } from '../access/rate-counters.js';
import { realTime } from '../lib/clock.js';

/** Sign-in attempts a client address may make per minute: plenty for a person, nothing for guessing keys. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;

/**
 * Counts the portal's sign-in attempts per client address, in the API's rate counters (the store's, or Redis's with
 * REDIS_URL), so the limit holds across every API process together, as the API's own limits do. Every attempt counts, whatever its outcome: the key is
 * checked only within the limit, so a refused address learns nothing more about any key.
 */
export function createSignInLimit(counters: RateCounters, options: { perMinute?: number; now?: () => Date } = {}) {
  const now = options.now ?? realTime.now;
  const perMinute = options.perMinute ?? SIGN_IN_ATTEMPTS_PER_MINUTE;
  return {
    /** Counts one attempt from `address`; past the limit, the whole seconds until the minute's window ends. */
    async attempt(address: string): Promise<{ retryAfter: number } | undefined> {
      const at = now().getTime();
      const minute = Math.floor(at / 60_000);
      const reset = (minute + 1) * 60_000;
      // The counters' first key is a client id elsewhere; this one is the sign-in form's, which no client id can be.
      const used = await counters.hit('portal-sign-in', `${addressKey(address)}:${minute}`, new Date(reset));
      if (used <= perMinute) return undefined;
      return { retryAfter: Math.max(1, Math.ceil((reset - at) / 1000)) };
    },
  };
}

/**
 * Whose attempts count together: an IPv4 address, or an IPv6 address's /64 (one host is given a whole /64 and may use
 * any address in it, so counting single IPv6 addresses would give it as many limits as it likes).
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

export type SignInLimit = ReturnType<typeof createSignInLimit>;
