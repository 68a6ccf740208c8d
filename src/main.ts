import { loadConfig } from './config.js';
import { openStore } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';
import { buildApp } from './app.js';
import { createClientsService } from './clients/clients.service.js';

/** `npm start`: migrate, create a first client on an empty store, serve until SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const store = await openStore(config.databaseUrl);
  await migrateToLatest(store.db, store.dialect.name);

  const clients = createClientsService({ db: store.db });
  const firstStart = (await clients.store.count()) === 0;
  const created = firstStart ? await clients.create({ name: 'Default client', plan: 'standard' }) : undefined;

  const app = await buildApp({
    store,
    publicUrl: config.publicUrl,
    logLevel: config.logLevel,
    bodyLimit: config.bodyLimit,
    jobs: { concurrency: config.jobConcurrency, leaseMs: config.jobLeaseMs },
    webhooks: { allowPrivate: config.webhooksAllowPrivate, retryScheduleMs: config.webhookRetryScheduleMs },
    push: { sandboxDelayMs: config.sandboxWriteDelayMs },
  });
  const url = await app.listen(config.port, config.host);

  if (created) {
    const header = `Basic ${Buffer.from(created.key.apiKey).toString('base64')}`;
    process.stdout.write(
      `\nFirst start: created client "${created.client.name}" (${created.client.id}).\n` +
        `Its API key, shown only this once:\n\n  ${created.key.apiKey}\n\n` +
        `Try it:\n\n  curl -H "Authorization: ${header}" ${url}/companies\n\n`,
    );
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.server.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await app.server.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`ledgerport: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
