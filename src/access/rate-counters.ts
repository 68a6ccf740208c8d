import { Redis } from 'ioredis';
import { ApiError } from '../http/api-error.js';

/**
 * Where rate-limit counters live. Shared by every process of the service (the store, or Redis when
 * `REDIS_URL` is set), so that limits hold across all API processes together.
 */
export interface RateCounters {
  /** Adds one to the client's counter for `window` and returns the new count; the counter ends at `expiresAt`. */
  hit(clientId: string, window: string, expiresAt: Date): Promise<number>;
  close(): Promise<void>;
}

/** Counters in Redis: INCR and PEXPIREAT in one MULTI, so a counter never outlives its window. */
export function redisRateCounters(url: string): RateCounters {
  // Fail a request fast rather than queue it while Redis is unreachable.
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // reconnects by itself; a failed command fails its request
  return {
    async hit(clientId, window, expiresAt) {
      const key = `ledgerport:rate:${clientId}:${window}`;
      try {
        const replies = await redis.multi().incr(key).pexpireat(key, expiresAt.getTime()).exec();
        const [err, count] = replies?.[0] ?? [new Error('no reply from Redis')];
        if (err) throw err;
        return Number(count);
      } catch {
        // Limits cannot be checked, so the request is not served; the client retries as after maintenance.
        throw new ApiError(503, 'ServiceUnavailable: The rate-limit store is not reachable; please retry later.', {
          headers: { 'Retry-After': '5' },
        });
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
