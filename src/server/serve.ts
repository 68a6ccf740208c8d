import { loadConfig } from '../config.js';
import { withoutCredentials } from '../lib/url-credentials.js';
import { checkPlatformSettings } from '../connectors/registry.js';
import { openStore } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { buildApp } from '../app.js';
import { createClientsService } from '../access/clients.service.js';
import { listenForMetrics } from '../operations/metrics-listener.js';
import { logStream } from './log-stream.js';
import { firstKeyPath, firstKeyText, writeFirstKey } from './first-key.js';
import type { Role } from './roles.js';

export { ROLES, type Role } from './roles.js';

/** Migrates the store, creates a first client on an empty one (API roles), and runs until SIGTERM/SIGINT. */
export async function serve(role: Role = 'all'): Promise<void> {
  const config = loadConfig();
  checkPlatformSettings();
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  await migrateToLatest(store.db, store.dialect.name);

  const answersHttp = role !== 'worker';
  const clients = createClientsService({ db: store.db });
  const firstStart = answersHttp && (await clients.store.count()) === 0;
  const created = firstStart ? await clients.create({ name: 'Default client', plan: 'standard' }) : undefined;

  const app = await buildApp({
    store,
    publicUrl: config.publicUrl,
    logLevel: config.logLevel,
    logStream: logStream(config.logFormat),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    redisUrl: config.redisUrl,
    jobs: {
      enabled: role !== 'api',
      concurrency: config.jobConcurrency,
      leaseMs: config.jobLeaseMs,
      shutdownGraceMs: config.shutdownGraceMs,
    },
    webhooks: { allowPrivate: config.webhooksAllowPrivate, retryScheduleMs: config.webhookRetryScheduleMs },
    connectors: { allowPrivate: config.connectorsAllowPrivate },
    push: { sandboxDelayMs: config.sandboxWriteDelayMs },
    metrics: { token: config.metricsToken },
    emulator: config.emulator,
    emulatorJournalSize: config.emulatorJournalSize,
    emulatorValidate: config.emulatorValidate,
  });
  if (config.emulator)
    app.server.log.warn(
      { store: store.dialect.name },
      `EMULATOR=true: the emulator's controls are on (/emulator/: test clocks, fault rules, fired events, Sandbox scenarios, the request journal${config.emulatorValidate ? `; answers checked against Codat's files in ${config.emulatorValidate.codatOasDir}` : ''}) over the ${store.dialect.name === 'postgres' ? 'Postgres' : 'SQLite'} store at ${withoutCredentials(config.databaseUrl)}; for testing integrations only, never in production`,
    );
  // Any role: a worker answers no other HTTP, and Prometheus scrapes every process.
  const metricsListener =
    config.metricsPort === undefined ? undefined : await listenForMetrics(app.metrics, config.metricsPort, config.host);
  if (metricsListener) app.server.log.info({ port: metricsListener.port }, 'serving GET /metrics');
  if (answersHttp) {
    const url = await app.listen(config.port, config.host);
    // Where a person goes next, on every start (the address clients use, when it is set).
    const base = config.publicUrl ?? url;
    app.server.log.info({ portal: `${base}/portal`, docs: `${base}/docs` }, `portal at ${base}/portal, API reference at ${base}/docs`);
    if (created) {
      const text = firstKeyText({ clientName: created.client.name, clientId: created.client.id, apiKey: created.key.apiKey }, url);
      if (process.stdout.isTTY) process.stdout.write(`\n${text}\n`);
      else {
        // Not a terminal: what the process prints is kept (a log file, a collector), so the key goes to a file.
        const file = firstKeyPath(config.databaseUrl);
        try {
          writeFirstKey(file, text);
          app.server.log.info(
            { clientId: created.client.id, file },
            `first start: created client "${created.client.name}"; its API key is in ${file} (readable by this user only); keep it somewhere safe and delete the file`,
          );
        } catch (err) {
          // The client exists, so no later start makes a key: say how to get one rather than stop with none.
          app.server.log.error(
            { clientId: created.client.id, file, err: err instanceof Error ? err.message : String(err) },
            `first start: created client "${created.client.name}" but could not write its API key to ${file}; issue one with: ledgerport keys create --client ${created.client.id}`,
          );
        }
      }
    }
  } else {
    await app.server.ready();
    // A worker listens nowhere, so it cannot learn the address clients use: links in the events it sends
    // (webhook payloads) come from PUBLIC_URL.
    if (!config.publicUrl)
      app.server.log.warn('PUBLIC_URL is not set: links in webhook events sent by this worker point at http://127.0.0.1');
    app.server.log.info({ role }, 'worker running jobs');
  }

  // Graceful stop: no new connections or jobs; requests in flight are answered; running jobs get
  // SHUTDOWN_GRACE_MS to finish, then are handed back (to run again here after a restart, or in another
  // worker). Whatever happens, the process is gone SHUTDOWN_GRACE_MS + 10 s after the signal.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.server.log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    const timer = setTimeout(() => {
      app.server.log.error('shutdown took too long: exiting now');
      process.exit(1);
    }, config.shutdownGraceMs + 10_000);
    timer.unref();
    await app.server.close();
    await metricsListener?.close();
    await store.close();
    app.server.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
