import { expect } from 'vitest';
import type { StripeFake } from '../fakes/stripe/stripe-fake.js';
import { companyWithConnection, fetchOnFirstLinkOnly, type LinkedCompany } from './sandbox.js';
import type { StripeAccount } from '../fakes/stripe/stripe-account.js';
import { http, type TestClient } from './test-server.js';
import type { Store } from '../../src/storage/database.js';
import { PUSH_JOB } from '../../src/push/push-job.js';
import { runningJobs } from './job-rows.js';
import { until } from './processes.js';

/** Stripe's create-customer path, as its fake logs it. */
export const STRIPE_CUSTOMERS = /^\/v1\/customers$/;

/** Anything answering the API: an in-process test server or a service process. */
type Server = { url: string };

/** Creates a customer at Stripe through the push API (no sync after it); returns the operation's key. */
export async function pushStripeCustomer(server: Server, client: Pick<TestClient, 'auth'>, linked: LinkedCompany, name: string) {
  const path = `/companies/${linked.companyId}/connections/${linked.connectionId}/push/commerce-customers?allowSyncOnPushComplete=false`;
  const res = await http(server, 'POST', path, { auth: client.auth, body: { customerName: name } });
  expect(res.status, res.text).toBe(200);
  return res.body.pushOperationKey as string;
}

/** What Stripe answered each customer creation sent since request `from` (its index in the fake's log). */
export function stripeCreations(fake: StripeFake, from: number): number[] {
  return fake
    .apiRequests((r) => r.method === 'POST' && STRIPE_CUSTOMERS.test(r.path))
    .filter((r) => fake.requests.indexOf(r) >= from)
    .map((r) => r.status);
}

/** A push operation as the API answers it now. */
export async function pushOperation(server: Server, client: Pick<TestClient, 'auth'>, companyId: string, key: string) {
  return (await http(server, 'GET', `/companies/${companyId}/push/${key}`, { auth: client.auth })).body;
}

/**
 * Polls a push operation until it settles, noting each holder of its job and the most runs each was seen with: a
 * worker that took the job over while it waited would show as a second holder, or as a second run.
 */
export async function settleNotingHolders(
  store: Store,
  settled: () => Promise<Record<string, any>>,
  timeoutMs: number,
  detail?: () => string,
): Promise<{ op: Record<string, any>; runs: Map<string, number> }> {
  const runs = new Map<string, number>();
  const op = await until(
    'the write to settle',
    async () => {
      for (const job of await runningJobs(store, PUSH_JOB)) runs.set(job.holder, Math.max(runs.get(job.holder) ?? 0, job.attempts));
      const current = await settled();
      return current.status === 'Pending' ? undefined : current;
    },
    timeoutMs,
    detail,
  );
  return { op, runs };
}

/**
 * Links a company to a Stripe account of the fake, with no sync on first link. The fake checks each answer against
 * Stripe's OpenAPI document, read and compiled at its first answer: seconds on a busy machine, more than the
 * connector waits for Stripe when it links; so its first answer is asked for here, before the link.
 */
export async function linkedToStripe(server: Server, client: Pick<TestClient, 'auth'>, fake: StripeFake, shop: StripeAccount) {
  const linked = await companyWithConnection(server, client, 'exgd');
  await fetchOnFirstLinkOnly(server, client, linked.companyId, []);
  const apiKey = shop.newKey();
  expect((await fetch(`${fake.url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
  const authorization = `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`;
  const res = await http(server, 'PUT', authorization, { auth: client.auth, body: { apiKey } });
  expect(res.status, res.text).toBe(200);
  return linked;
}
