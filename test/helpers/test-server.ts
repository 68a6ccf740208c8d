import { buildApp, type App, type AppOptions } from '../../src/app.js';
import { createClientsService } from '../../src/access/clients.service.js';
import type { PlanName } from '../../src/clients/plans.js';
import { createTestStore, type TestStore } from './test-store.js';

export interface TestClient {
  clientId: string;
  apiKey: string;
  /** Value of the Authorization header for this client's key. */
  auth: string;
}

export interface TestServer extends TestStore {
  app: App;
  url: string;
  /** Creates a client (through the same service the CLI uses) with its first key. */
  newClient(options?: { plan?: PlanName; createdAt?: string; name?: string }): Promise<TestClient>;
  close(): Promise<void>;
}

export function basicAuth(apiKey: string): string {
  return `Basic ${Buffer.from(apiKey).toString('base64')}`;
}

/** Starts the real service on an ephemeral port over a fresh store. */
export async function startTestServer(
  options: {
    maintenancePollMs?: number;
    jobs?: AppOptions['jobs'];
    push?: AppOptions['push'];
    webhooks?: AppOptions['webhooks'];
    httpTimeouts?: AppOptions['httpTimeouts'];
    connectors?: AppOptions['connectors'];
    metrics?: AppOptions['metrics'];
    /** Collects the server's log (JSON lines, info and above) here instead of discarding it. */
    logLines?: string[];
    trustProxy?: AppOptions['trustProxy'];
    reports?: AppOptions['reports'];
    emulator?: boolean;
    emulatorJournalSize?: number;
    emulatorValidate?: AppOptions['emulatorValidate'];
  } = {},
): Promise<TestServer> {
  const testStore = await createTestStore();
  const logLines = options.logLines;
  const app = await buildApp({
    store: testStore.store,
    logLevel: logLines ? 'info' : (process.env.TEST_LOG_LEVEL ?? 'silent'),
    ...(logLines ? { logStream: { write: (line: string) => void logLines.push(line) } } : {}),
    maintenancePollMs: options.maintenancePollMs ?? 100,
    jobs: { pollMs: 50, ...options.jobs },
    push: options.push,
    httpTimeouts: options.httpTimeouts,
    connectors: options.connectors,
    metrics: options.metrics,
    trustProxy: options.trustProxy,
    reports: options.reports,
    emulator: options.emulator,
    emulatorJournalSize: options.emulatorJournalSize,
    emulatorValidate: options.emulatorValidate,
    // Test receivers listen on loopback, which production refuses (WEBHOOKS_ALLOW_PRIVATE).
    webhooks: { allowPrivate: true, ...options.webhooks },
  });
  const url = await app.listen(0, '127.0.0.1');
  const clients = createClientsService({ db: testStore.store.db });
  return {
    ...testStore,
    app,
    url,
    async newClient(opts = {}) {
      const { client, key } = await clients.create({
        name: opts.name ?? 'Test client',
        plan: opts.plan ?? 'standard',
        createdAt: opts.createdAt,
      });
      return { clientId: client.id, apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
    },
    async close() {
      await app.server.close();
      await testStore.destroy();
    },
  };
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A small fetch wrapper: JSON in, parsed JSON (when any) out. */
export async function http<T = any>(
  server: { url: string },
  method: string,
  path: string,
  options: { auth?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.auth) headers.authorization = options.auth;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
