import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { ConnectorError } from './connector-error.js';
import type { PlatformDeclaration } from './platform-declaration.js';
import { accountKey, type PlatformEndpoint } from './platform-http.js';
import { pauseAccount } from './politeness.js';
import { realTime } from '../lib/clock.js';

/*
 * A platform's declared remaining-limit headers (`transport.remainingLimits`), heeded for every request of an endpoint
 * made from its declaration: the answer itself stands (a write that answered was made); what the platform says is
 * left decides when the next request may start. Kept per process, like politeness.
 */

/** Accounts whose day is spent, until when (ms since the epoch); and until when each platform's application waits. */
const dayExhausted = new Map<string, number>();
const applicationPausedUntil = new Map<string, number>();

/** A platform's day is rolling (Xero's is 24 hours back from now): an account out of it is tried again in an hour. */
const DAY_RETRY_MS = 60 * 60_000;

/**
 * The hooks of an endpoint whose platform declares remaining-limit headers: told of each answer's headers (one
 * saying 0 pauses its account, the application, or the day), and asked before each request (an account out of its
 * day hands the sync back; an application out of its window waits). The declared headers are read at each answer.
 */
export function remainingLimitHooks(
  declaration: PlatformDeclaration,
  endpoint: PlatformEndpoint,
): Required<Pick<PlatformEndpoint, 'onHeaders' | 'beforeRequest'>> {
  // Worked out at the first answer or request (by then platformRequest has checked the address), once per endpoint.
  let key: string | undefined;
  const accountOf = () => (key ??= accountKey(endpoint));
  const windowMs = endpoint.politeness?.windowMs ?? 60_000;
  return {
    onHeaders(headers: IncomingHttpHeaders) {
      const now = realTime.now().getTime();
      for (const { header, scope } of declaration.transport?.remainingLimits ?? []) {
        if (headers[header] !== '0') continue;
        if (scope === 'account') pauseAccount(accountOf(), windowMs);
        else if (scope === 'application')
          applicationPausedUntil.set(declaration.key, Math.max(applicationPausedUntil.get(declaration.key) ?? 0, now + windowMs));
        else dayExhausted.set(accountOf(), now + DAY_RETRY_MS);
      }
    },
    async beforeRequest() {
      const now = realTime.now().getTime();
      const until = dayExhausted.get(accountOf()) ?? 0;
      if (until > now)
        throw new ConnectorError('rate-limited', `${declaration.name}: the account has used its calls for the day`, undefined, until - now);
      dayExhausted.delete(accountOf());
      const paused = applicationPausedUntil.get(declaration.key) ?? 0;
      if (paused > now) await sleep(paused - now, undefined, { signal: endpoint.signal });
    },
  };
}
