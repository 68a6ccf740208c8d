import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { ConnectorError } from './connector-error.js';
import type { PlatformDeclaration } from './platform-declaration.js';
import { accountKey, type PlatformEndpoint } from './platform-http.js';
import { pauseAccount } from './politeness.js';

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

/** Told of each answer's headers: a declared header saying 0 pauses its account, the application, or the day. */
export function heedRemaining(declaration: PlatformDeclaration, endpoint: PlatformEndpoint, headers: IncomingHttpHeaders): void {
  const windowMs = endpoint.politeness?.windowMs ?? 60_000;
  // eslint-disable-next-line no-restricted-syntax -- real time: a platform's call limits (outbound rate-limit windows)
  const now = Date.now();
  for (const { header, scope } of declaration.transport?.remainingLimits ?? []) {
    if (headers[header] !== '0') continue;
    if (scope === 'account') pauseAccount(accountKey(endpoint), windowMs);
    else if (scope === 'application')
      applicationPausedUntil.set(declaration.key, Math.max(applicationPausedUntil.get(declaration.key) ?? 0, now + windowMs));
    else dayExhausted.set(accountKey(endpoint), now + DAY_RETRY_MS);
  }
}

/** Before each request: an account out of its day hands the sync back; an application out of its window waits. */
export async function withinRemaining(declaration: PlatformDeclaration, endpoint: PlatformEndpoint): Promise<void> {
  // eslint-disable-next-line no-restricted-syntax -- real time: a platform's call limits (outbound rate-limit windows)
  const now = Date.now();
  const until = dayExhausted.get(accountKey(endpoint)) ?? 0;
  if (until > now)
    throw new ConnectorError('rate-limited', `${declaration.name}: the account has used its calls for the day`, undefined, until - now);
  dayExhausted.delete(accountKey(endpoint));
  const paused = applicationPausedUntil.get(declaration.key) ?? 0;
  if (paused > now) await sleep(paused - now, undefined, { signal: endpoint.signal });
}
