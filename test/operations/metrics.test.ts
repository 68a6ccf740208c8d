import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from '../helpers/sandbox.js';
import { createConsumer, startReceiver, type Receiver } from '../webhooks/receiver.js';
import { createTestStore, storeKind, type TestStore } from '../helpers/test-store.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { exited, freePort, startService, until, type ServiceProcess } from '../helpers/processes.js';
import { createClientsStore } from '../../src/clients/clients.store.js';
import { setMaintenance } from '../../src/access/maintenance.js';
import { listenForMetrics } from '../../src/operations/metrics-listener.js';
import { SYNC_JOB } from '../../src/syncs/sync-queue.js';

/** `GET /metrics` (issue 17): behind METRICS_TOKEN on the API's port, or alone on METRICS_PORT. */

const TOKEN = 'metrics-test-token-0123456789abcdef';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ALERTS = fileURLToPath(new URL('../../deploy/prometheus/alerts.yml', import.meta.url));

/** Debian's `promtool` (package `prometheus`): absent, its checks skip with this reason, except under CI=true. */
function promtoolMissing(): string | undefined {
  if (spawnSync('promtool', ['--version']).status === 0) return undefined;
  const reason = 'promtool not installed (Debian package prometheus; .ci/run installs it)';
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`);
  return reason;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a scrape in the Prometheus text format (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[name] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

const named = (samples: Sample[], name: string) => samples.filter((s) => s.name === name);

async function scrape(server: TestServer): Promise<{ text: string; samples: Sample[] }> {
  const res = await http(server, 'GET', '/metrics', { headers: bearer(TOKEN) });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: res.text, samples: parse(res.text) };
}

describe('GET /metrics with METRICS_TOKEN', () => {
  let server: TestServer;
  let client: TestClient;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startTestServer({
      metrics: { token: TOKEN },
      push: { sandboxDelayMs: 50 },
      webhooks: { retryScheduleMs: [50] },
    });
    client = await server.newClient();
    // The first delivery is refused, its retry accepted: two attempts with different outcomes.
    receiver = await startReceiver((index) => (index === 0 ? 500 : 200));
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  }, 120_000);

  it('answers 401 with the error body without a bearer token or with a wrong one, 200 with the right one', async () => {
    for (const headers of [{}, bearer('wrong-token-0123456789abcdef'), bearer(`${TOKEN}x`), { authorization: `Basic ${TOKEN}` }]) {
      const res = await http(server, 'GET', '/metrics', { headers });
      expectErrorBody(res, 401, { error: 'Unauthorized' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    // An API key is no metrics token.
    expectErrorBody(await http(server, 'GET', '/metrics', { auth: client.auth }), 401, { error: 'Unauthorized' });
    const { samples } = await scrape(server);
    // The process's defaults, with the prefix.
    expect(named(samples, 'ledgerport_process_cpu_user_seconds_total')).toHaveLength(1);
    expect(named(samples, 'ledgerport_nodejs_heap_size_total_bytes')).toHaveLength(1);
    expect(named(samples, 'ledgerport_process_resident_memory_bytes')).toHaveLength(1);
    // Handles by type stay; their `…_total` gauge (a gauge named as a counter) does not.
    expect(named(samples, 'ledgerport_nodejs_active_handles').length).toBeGreaterThan(0);
    expect(named(samples, 'ledgerport_nodejs_active_handles_total')).toEqual([]);
  });

  it('is answered during maintenance, when the API is not', async () => {
    await setMaintenance(server.store.db, true);
    try {
      await until('maintenance to be seen', async () =>
        (await http(server, 'GET', '/companies', { auth: client.auth })).status === 503 ? true : undefined,
      );
      await scrape(server);
    } finally {
      await setMaintenance(server.store.db, false);
      await until('maintenance to end', async () =>
        (await http(server, 'GET', '/companies', { auth: client.auth })).status === 200 ? true : undefined,
      );
    }
  });

  it('counts requests by route template, a sync, a push, webhook attempts and a 429, with no id in any label', async () => {
    const before = (await scrape(server)).samples;

    await createConsumer(server, client, { url: receiver.url, eventTypes: ['company.created'] });
    const linked = await companyWithConnection(server, client);
    await fetchOnFirstLinkOnly(server, client, linked.companyId, ['customers', 'invoices']);
    await authorize(server, client, linked);
    // Generous: on a loaded machine two small syncs can take minutes.
    await waitForSyncs(server, client, linked.companyId, 240_000);
    const invoices = await http(server, 'GET', `/companies/${linked.companyId}/data/invoices?page=1&pageSize=5`, { auth: client.auth });
    expect(invoices.status, invoices.text).toBe(200);
    const customerId = (await http(server, 'GET', `/companies/${linked.companyId}/data/customers?pageSize=1`, { auth: client.auth })).body
      .results[0].id;

    const push = await http(server, 'POST', `/companies/${linked.companyId}/connections/${linked.connectionId}/push/invoices`, {
      auth: client.auth,
      body: {
        invoiceNumber: 'LP-METRICS-1',
        customerRef: { id: customerId },
        issueDate: '2024-05-01',
        dueDate: '2024-05-31T00:00:00',
        currency: 'GBP',
        lineItems: [{ description: 'Consulting', unitAmount: 100, quantity: 1, subTotal: 100, taxAmount: 20, totalAmount: 120 }],
        subTotal: 100,
        totalTaxAmount: 20,
        totalAmount: 120,
        amountDue: 120,
        status: 'Submitted',
      },
    });
    expect(push.status, push.text).toBe(200);
    const pushKey = push.body.pushOperationKey;
    const settled = await until('the push to settle', async () => {
      const res = await http(server, 'GET', `/companies/${linked.companyId}/push/${pushKey}`, { auth: client.auth });
      return res.body.status === 'Pending' ? undefined : res.body;
    });
    expect(settled.status, JSON.stringify(settled)).toBe('Success');
    await receiver.waitFor(2);

    // A daily quota of 1: the next requests are refused (the first, should a new UTC day start just then).
    await createClientsStore(server.store.db).setLimits(client.clientId, { dailyQuota: 1 });
    const refused = await until('a 429', async () =>
      (await http(server, 'GET', '/profile', { auth: client.auth })).status === 429 ? true : undefined,
    );
    expect(refused).toBe(true);

    // Counters are counted when their transaction commits, just after the answers above: poll until they show.
    const { text, samples } = await until('the counts to show', async () => {
      const scraped = await scrape(server);
      const delivered = total(scraped.samples, 'ledgerport_webhook_deliveries_total', { outcome: 'delivered', attempt: '2' });
      return delivered > total(before, 'ledgerport_webhook_deliveries_total', { outcome: 'delivered', attempt: '2' }) ? scraped : undefined;
    });
    const moved = (name: string, labels: Record<string, string>) =>
      expect(total(samples, name, labels), `${name} ${JSON.stringify(labels)}`).toBeGreaterThan(total(before, name, labels));

    const invoicesRoute = { route: '/companies/:companyId/data/invoices', method: 'GET', status_code: '200' };
    moved('ledgerport_http_request_duration_seconds_count', invoicesRoute);
    moved('ledgerport_http_request_duration_seconds_bucket', { ...invoicesRoute, le: '+Inf' });
    moved('ledgerport_http_request_duration_seconds_count', { route: '/profile', method: 'GET', status_code: '429' });
    const sync = { platform: 'mqjo', data_type: 'invoices', outcome: 'Complete' };
    moved('ledgerport_sync_duration_seconds_count', sync);
    moved('ledgerport_sync_records_total', sync);
    moved('ledgerport_push_operations_total', { platform: 'mqjo', data_type: 'invoices', outcome: 'Success' });
    moved('ledgerport_webhook_deliveries_total', { outcome: 'rejected', attempt: '1' });
    moved('ledgerport_rate_limit_refusals_total', { reason: 'daily_quota' });

    // The queue gauges name every kind of job, waiting or not.
    expect(named(samples, 'ledgerport_jobs_queued').map((s) => s.labels.kind)).toContain(SYNC_JOB);
    for (const s of named(samples, 'ledgerport_jobs_oldest_queued_age_seconds')) expect(s.value).toBeGreaterThanOrEqual(0);
    // The pool is Postgres's; SQLite has none, and says nothing of it.
    expect(named(samples, 'ledgerport_store_pool_max_connections')).toHaveLength(storeKind === 'postgres' ? 1 : 0);

    // Route templates, never paths: no id, key or query text in any label, and no raw URL.
    for (const id of [linked.companyId, linked.connectionId, client.clientId, customerId, pushKey, client.apiKey, TOKEN]) {
      expect(text).not.toContain(id);
    }
    for (const s of samples) {
      for (const value of Object.values(s.labels)) expect(value, `${s.name} ${JSON.stringify(s.labels)}`).not.toMatch(UUID);
      if (s.labels.route !== undefined) expect(s.labels.route).not.toMatch(/[?=]/);
    }
  }, 360_000);

  it('labels requests no route matched "unmatched", whatever their path', async () => {
    const before = total((await scrape(server)).samples, 'ledgerport_http_request_duration_seconds_count', {
      route: 'unmatched',
      status_code: '404',
    });
    const res = await http(server, 'GET', '/no/such/path/8d7b3c1e-0000-4000-8000-000000000000?query=secret');
    expect(res.status).toBe(404);
    const { text, samples } = await scrape(server);
    expect(total(samples, 'ledgerport_http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' })).toBeGreaterThan(
      before,
    );
    expect(text).not.toContain('/no/such/path');
  });

  it('passes `promtool check metrics`', async (context) => {
    const missing = promtoolMissing();
    if (missing) {
      console.warn(`skipped: ${missing}`);
      context.skip();
    }
    const { text } = await scrape(server);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    // Exit 0 only: 3 would be lint problems (a gauge named `…_total`, a missing HELP), which clients' tools trip on too.
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ jobs: { enabled: false } });
  });
  afterAll(async () => server?.close());

  it('is not there on the API port: the normal 404', async () => {
    const res = await http(server, 'GET', '/metrics', { headers: bearer(TOKEN) });
    expectErrorBody(res, 404, { error: 'NotFoundException: No endpoint matches GET /metrics.' });
  });

  it('is served on a port of its own (METRICS_PORT), without a token, and counts the queue there', async () => {
    const listener = await listenForMetrics(server.app.metrics, 0, '127.0.0.1');
    try {
      const metricsUrl = { url: `http://127.0.0.1:${listener.port}` };
      // This process runs no jobs: the first-link syncs of a linked company wait in the queue.
      const client = await server.newClient();
      const linked = await companyWithConnection(server, client);
      await fetchOnFirstLinkOnly(server, client, linked.companyId, ['invoices']);
      await authorize(server, client, linked);

      const res = await http(metricsUrl, 'GET', '/metrics');
      expect(res.status, res.text).toBe(200);
      const samples = parse(res.text);
      expect(total(samples, 'ledgerport_jobs_queued', { kind: SYNC_JOB })).toBeGreaterThanOrEqual(1);
      expect(total(samples, 'ledgerport_jobs_oldest_queued_age_seconds', { kind: SYNC_JOB })).toBeGreaterThanOrEqual(0);
      expect(total(samples, 'ledgerport_http_request_duration_seconds_count', { route: '/companies', method: 'POST' })).toBe(1);
      expect((await http(metricsUrl, 'GET', '/companies')).status).toBe(404);
    } finally {
      await listener.close();
    }
  });
});

describe('METRICS_PORT on a worker process', () => {
  let store: TestStore;
  let worker: ServiceProcess | undefined;
  beforeAll(async () => {
    assertCliBuilt();
    store = await createTestStore();
  });
  afterAll(async () => {
    if (worker) {
      worker.child.kill('SIGKILL');
      await exited(worker.child);
    }
    await store?.destroy();
  });

  it('serves /metrics from `serve --role worker`, which answers no other HTTP', async () => {
    const port = await freePort();
    worker = await startService(store.databaseUrl, 'worker', { METRICS_PORT: String(port) });
    const text = await until(
      'the worker to serve /metrics',
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`);
        return res.ok ? res.text() : undefined;
      },
      // A cold start (migrations, the job engine) takes long on a loaded machine.
      150_000,
      () => worker!.output(),
    );
    expect(named(parse(text), 'ledgerport_jobs_queued').map((s) => s.labels.kind)).toContain(SYNC_JOB);
    expect((await fetch(`http://127.0.0.1:${port}/companies`)).status).toBe(404);
  }, 180_000);
});

describe('the alert rules (deploy/prometheus/alerts.yml)', () => {
  it('pass `promtool check rules`', (context) => {
    const missing = promtoolMissing();
    if (missing) {
      console.warn(`skipped: ${missing}`);
      context.skip();
    }
    const check = spawnSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
  });
});
