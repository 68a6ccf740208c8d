import { randomUUID, createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Store } from './storage/database.js';
import { installErrorHandler } from './http/error-handler.js';
import { installNotFound } from './http/not-found.js';
import { installValidators } from './http/validators.js';
import { createRequestGuard } from './access/request-guard.js';
import { HTTP_TIMEOUTS, installRawRefusals, requireHost, wireErrorOptions, type HttpTimeouts } from './http/wire-errors.js';
import { lingerIfBodyUnread } from './http/lingering-close.js';
import { ErrorMessage } from './http/responses.js';
import { createListContext } from './query/list-engine.js';
import { createClientsStore } from './clients/clients.store.js';
import { createRateLimiter } from './access/rate-limiter.js';
import { redisRateCounters } from './access/rate-counters.js';
import { storeRateCounters } from './access/rate-counters.store.js';
import { registerProfileRoutes } from './clients/profile.routes.js';
import { Profile } from './clients/profile.js';
import { createApiKeysStore } from './api-keys/api-keys.store.js';
import { createApiKeysService } from './api-keys/api-keys.service.js';
import { ApiKeyDetails, registerApiKeyRoutes } from './api-keys/api-keys.routes.js';
import { createCompaniesService } from './companies/companies.service.js';
import { registerCompanyRoutes } from './companies/companies.routes.js';
import { Company } from './companies/company.schema.js';
import { Connection } from './connections/connection.schema.js';
import { createIntegrationsService, publishIntegrations } from './integrations/integrations.service.js';
import { registerIntegrationRoutes } from './integrations/integrations.routes.js';
import { Integration } from './integrations/integration.schema.js';
import { watchMaintenance } from './access/maintenance.js';
import { registerHealthRoutes } from './operations/health.routes.js';
import { registerFrontDoor } from './operations/front-door.routes.js';
import { createMetrics, type Metrics } from './operations/metrics.js';
import { installRequestMetrics, registerMetricsRoute } from './operations/metrics.routes.js';
import { watchStore } from './operations/store-metrics.js';
import { registerOpenApi } from './docs/openapi.js';
import { registerDocsRoutes } from './docs/docs.routes.js';
import { VERSION } from './version.js';
import { createJobEngine } from './jobs/job-engine.js';
import { createSyncJob } from './syncs/sync-job.js';
import { createVersionWriters } from './syncs/version-writers.js';
import { loadSecretKeys, type SecretKeys } from './secrets/secret-keys.js';
import { requestLogFields } from './http/log-redaction.js';
import { createCredentialsStore } from './connections/credentials.store.js';
import { DELETE_VERSION_JOB, SYNC_JOB } from './syncs/sync-queue.js';
import { queueDueSyncs } from './syncs/sync-scheduler.js';
import { createSyncsService } from './syncs/syncs.service.js';
import { registerSyncRoutes } from './syncs/syncs.routes.js';
import { registerSyncSettingsRoutes } from './syncs/sync-settings.routes.js';
import { PullOperation } from './syncs/pull-operation.js';
import { SyncSetting } from './syncs/sync-settings.js';
import { createConnectionsService } from './connections/connections.service.js';
import { deleteConnectionsStep } from './connections/connection-deletion.js';
import { deletionCascade, type DeletionStep } from './storage/deletion.js';
import type { JobQueue } from './jobs/job-queue.js';
import { deleteSyncsStep } from './syncs/sync-deletion.js';
import { queueFirstSyncsOf } from './syncs/first-link.js';
import { deletePlatformData } from './platform-data/platform-data-deletion.js';
import { registerConnectionRoutes } from './connections/connections.routes.js';
import { registerFileRoutes } from './uploads/files.routes.js';
import { createFilesService } from './uploads/files.service.js';
import { createIntakeRunner } from './uploads/intake.js';
import { registerUploadSessionRoutes } from './uploads/upload-sessions.routes.js';
import { createUploadSessionsService } from './uploads/upload-sessions.service.js';
import { createDataSetsService } from './data/data-sets.service.js';
import { registerDataSetRoutes } from './data/data-sets.routes.js';
import { registerFinancialsRoutes } from './data/financials.routes.js';
import { createAgedReportsService } from './reports/aged/aged-reports.service.js';
import { createAgedReadingThreads } from './reports/aged/aged-reading-threads.js';
import { agedVersionDigests } from './reports/aged/aged-version-digests.js';
import { createEnhancedFinancialsService } from './reports/enhanced/enhanced-financials.service.js';
import { registerEnhancedFinancialsRoutes } from './reports/enhanced/enhanced-financials.routes.js';
import { deleteCategoriesStep } from './reports/categories/account-categories.store.js';
import { registerAgedReportRoutes } from './reports/aged/aged-reports.routes.js';
import { registerDataIntegrityRoutes } from './reports/integrity/data-integrity.routes.js';
import { registerCommerceMetricsRoutes } from './reports/commerce/commerce-metrics.routes.js';
import { createCommerceMetricsService } from './reports/commerce/commerce-metrics.service.js';
import { registerEnhancedInvoicesRoutes } from './reports/enhanced-invoices/enhanced-invoices.routes.js';
import { createEnhancedInvoicesService } from './reports/enhanced-invoices/enhanced-invoices.service.js';
import { createDataIntegrityService, type DataIntegrityService } from './reports/integrity/data-integrity.service.js';
import { createRecordReader } from './records/record-reader.js';
import { registerLinkRoutes } from './link/link.routes.js';
import { registerWebhooks } from './webhooks/webhooks.routes.js';
import { webhookJobHandlers } from './webhooks/webhook-jobs.js';
import { recordRateLimitReached } from './webhooks/rate-limit-events.js';
import { createPushService } from './push/push.service.js';
import { registerPushRoutes } from './push/push.routes.js';
import { createPushJob, PUSH_JOB } from './push/push-job.js';
import { PushOperation } from './push/push-operation.js';
import { PushOption } from './push/push-option.js';
import { createUsageTally } from './clients/usage-tally.js';
import { registerPortalRoutes } from './portal/portal.routes.js';
import { createPortalSessions } from './portal/portal-session.js';
import { createPortalSessionsStore } from './portal/portal-sessions.store.js';
import { createWebhooksService } from './webhooks/webhooks.service.js';
import { clockFor } from './lib/clock.js';
import { createEmulator } from './emulator/emulator.js';

/** What deleting a company or a connection deletes: each module's part, children first, in the deletion's transaction. */
export function deletionOfOwned(jobs: JobQueue, more: readonly DeletionStep[] = []): DeletionStep {
  return deletionCascade([deleteCategoriesStep, deleteSyncsStep(jobs), deletePlatformData, deleteConnectionsStep, ...more]);
}

export interface AppOptions {
  store: Store;
  /** Keys sealing connection credentials; by default from LEDGERPORT_SECRET_KEY or `secret.key` (src/secrets/secret-keys.ts). */
  secretKeys?: SecretKeys;
  /** Public base address; when absent it is derived from the listening address once the server listens. */
  publicUrl?: string;
  logLevel?: string;
  /** Where log lines go (readable ones: src/server/log-stream.ts); by default pino's JSON lines on stdout. */
  logStream?: { write(line: string): void };
  /** Reverse proxies in front (TRUST_PROXY): hops or addresses whose X-Forwarded-For is believed. */
  trustProxy?: number | string[];
  bodyLimit?: number;
  /** How long clients may take (docs/decisions.md); tests shorten them. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Rate-limit counters in this Redis instead of the store (`REDIS_URL`). */
  redisUrl?: string;
  /** How often the maintenance flag is re-read from the store, in ms. */
  maintenancePollMs?: number;
  /** Background work in this process: syncs and other jobs, and the sync schedule. */
  jobs?: {
    /** Run jobs here (false for an API-only process). Default true. */
    enabled?: boolean;
    concurrency?: number;
    pollMs?: number;
    /** A running job whose process stops runs again elsewhere after this long without a heartbeat, in ms. */
    leaseMs?: number;
    /** On close, how long running jobs may take to finish before they are handed back, in ms (default: no limit). */
    shutdownGraceMs?: number;
    /** How long a superseded data-set version stays readable for in-flight readers. */
    retainSupersededMs?: number;
    /** How often due scheduled syncs are queued, in ms. */
    scheduleEveryMs?: number;
    /** Threads that write synced data (0: write on the main thread). Defaults to `concurrency`. */
    writerThreads?: number;
  };
  /** Lenders' reports. */
  reports?: {
    /** From how many records (all its inputs) an aged report's first computation runs on reading threads (tests: 0). */
    threadFrom?: number;
    /** From how many records a version's aged digest is made on a thread of its own (tests: 0). */
    digestThreadFrom?: number;
  };
  /** Writes (push operations). */
  push?: {
    /** How long the Sandbox platforms take to process a write, in ms (`SANDBOX_WRITE_DELAY_MS`). */
    sandboxDelayMs?: number;
    /** Length of the minute `timeoutInMinutes` counts in, in ms: 60000, shortened by tests. */
    minuteMs?: number;
  };
  /** Live platforms. */
  connectors?: {
    /** Reach platforms on loopback, private and link-local addresses too (`CONNECTORS_ALLOW_PRIVATE=true`). */
    allowPrivate?: boolean;
  };
  /** Outbound webhooks. */
  webhooks?: {
    /** Deliver to loopback, private and link-local addresses too (`WEBHOOKS_ALLOW_PRIVATE=true`). */
    allowPrivate?: boolean;
    /** Delay before each attempt after the first, in ms (`WEBHOOK_RETRY_SCHEDULE`); the default is facts 7's. */
    retryScheduleMs?: number[];
    /** An attempt without a 2xx answer within this long fails, in ms (15000). */
    timeoutMs?: number;
    /** A consumer whose deliveries have all failed for this long is disabled, in ms (5 days). */
    disableAfterMs?: number;
  };
  /** The emulator's controls under `/emulator/` (test clocks; `EMULATOR=true`, docs/emulator.md). Off by default. */
  emulator?: boolean;
  /** The emulator's request journal: entries kept per client (`EMULATOR_JOURNAL_SIZE`). */
  emulatorJournalSize?: number;
  /** `EMULATOR_VALIDATE=true`: answers checked against Codat's files in this folder (docs/emulator.md). */
  emulatorValidate?: { codatOasDir: string };
  /** Prometheus metrics. */
  metrics?: {
    /** Serve `GET /metrics` on this server to this bearer token (`METRICS_TOKEN`); without it the route is absent. */
    token?: string;
  };
}

export interface App {
  server: FastifyInstance;
  /** The address this server is reached at (for `redirect` links and documentation references). */
  publicUrl(): string;
  /** Listens and fixes the public address if none was configured. Returns the public address. */
  listen(port: number, host: string): Promise<string>;
  /** This app's Prometheus series (also served on METRICS_PORT by serve.ts). */
  metrics: Metrics;
}

/** Builds the HTTP service over an open store. Every module registers its own routes. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { store } = options;
  const { db, dialect } = store;
  // Resolved before anything else: on Postgres a missing key stops the start with a message saying what to set.
  const secretKeys = options.secretKeys ?? loadSecretKeys(store.url);
  let publicUrl = options.publicUrl ?? 'http://127.0.0.1';

  const docsUrl = () => `${publicUrl}/docs/errors`;
  const server = Fastify({
    logger: {
      level: options.logLevel ?? 'info',
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      // An OAuth callback's address holds the authorization code: logged without it.
      serializers: { req: requestLogFields },
      ...(options.logStream && { stream: options.logStream }),
    },
    genReqId: () => randomUUID(),
    // Behind reverse proxies (TRUST_PROXY), `request.ip` is the client's address from X-Forwarded-For.
    ...(options.trustProxy !== undefined && {
      trustProxy:
        typeof options.trustProxy === 'number'
          ? (
              (hops: number) => (_address: string, hop: number) =>
                hop < hops
            )(options.trustProxy)
          : options.trustProxy,
    }),
    bodyLimit: options.bodyLimit ?? 5 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    ...wireErrorOptions(docsUrl, { ...HTTP_TIMEOUTS, ...options.httpTimeouts }),
  });
  installRawRefusals(server.server, docsUrl);
  const metrics = createMetrics();
  installRequestMetrics(server, metrics);

  installValidators(server);
  installErrorHandler(server, docsUrl);
  installNotFound(server);
  for (const schema of [ErrorMessage, Company, Connection, Profile, ApiKeyDetails, Integration]) server.addSchema(schema);
  await registerOpenApi(server, VERSION);

  const maintenance = watchMaintenance(db, options.maintenancePollMs ?? 500, (err) =>
    server.log.error({ err }, 'reading maintenance flag failed'),
  );
  await maintenance.refresh();
  server.addHook('onClose', async () => maintenance.stop());

  const jobOptions = options.jobs ?? {};
  const runsJobs = jobOptions.enabled !== false;
  const engine = await createJobEngine(store, {
    log: server.log,
    concurrency: jobOptions.concurrency,
    pollMs: jobOptions.pollMs,
    leaseMs: jobOptions.leaseMs,
    shutdownGraceMs: jobOptions.shutdownGraceMs,
  });
  // With the emulator on, jobs queued on a test clock run in its time, and its routes and hooks exist; off, none of it.
  const emulator = options.emulator
    ? createEmulator({
        db,
        engine,
        journalSize: options.emulatorJournalSize,
        codatOasDir: options.emulatorValidate?.codatOasDir,
        journalKey: createHmac('sha256', secretKeys.current.bytes).update('ledgerport emulator journal').digest(),
        onError: (err) => server.log.error({ err }, 'the emulator failed to keep a journal entry'),
      })
    : undefined;
  const jobs = emulator?.jobs ?? engine;
  emulator?.installBeforeRoutes(server);

  const clients = createClientsStore(db);
  const rateCounters = options.redisUrl ? redisRateCounters(options.redisUrl) : storeRateCounters(db);
  server.addHook('onClose', async () => rateCounters.close());
  const apiKeysStore = createApiKeysStore(db, store.pgPool);
  // Requests and 429s per client and hour, for the portal's usage chart: counted once a request has a client.
  const usage = createUsageTally(db, { onError: (err) => server.log.error({ err }, 'recording usage failed') });
  server.addHook('onClose', async () => usage.close());
  server.addHook('onResponse', async (request, reply) => {
    if (request.client) usage.count(request.client.id, reply.statusCode === 429);
  });
  server.addHook('onRequest', async (request, reply) => {
    reply.header('X-Correlation-Id', request.id);
  });
  server.addHook('onRequest', requireHost);
  server.addHook('onSend', (request, _reply, payload, done) => {
    lingerIfBodyUnread(request);
    done(null, payload);
  });
  server.addHook(
    'onRequest',
    createRequestGuard({
      apiKeys: apiKeysStore,
      rateLimiter: createRateLimiter({
        counters: rateCounters,
        clients,
        onQuotaReached: (event) => recordRateLimitReached(db, jobs, event).then(() => jobs.wake()),
        onRefused: (reason) => metrics.rateLimitRefused(reason),
      }),
      maintenance,
      businessTime: emulator?.businessTime,
    }),
  );
  emulator?.installAfterGuard(server);

  const lists = createListContext(db, dialect);
  const urls = { publicUrl: () => publicUrl };
  await publishIntegrations(db);

  // One writing thread per job slot: each running sync writes on its own thread.
  const writers = createVersionWriters(store, { threads: runsJobs ? (jobOptions.writerThreads ?? jobOptions.concurrency ?? 2) : 0 });
  const credentials = createCredentialsStore(secretKeys);
  const allowPrivate = options.connectors?.allowPrivate ?? false;
  // Aged reports' inputs are read on threads of their own; their digests are made as each version is written.
  const agedThreads = createAgedReadingThreads(store.url);
  server.addHook('onClose', async () => agedThreads?.close());
  const records = createRecordReader(store, lists);
  // Data integrity matches a company's books and banks after every sync of its inputs; the service is made with its
  // routes below (it reads through the data sets).
  let dataIntegrity: DataIntegrityService | undefined;
  const syncJob = createSyncJob({
    store,
    writers,
    faults: emulator?.faults.sync,
    afterComplete: (sync) => {
      void (async () => {
        const client = await clients.get(sync.clientId);
        if (client && dataIntegrity) await dataIntegrity.afterSync(client, sync.companyId, sync.dataType);
      })().catch((error: unknown) =>
        server.log.warn({ err: error, companyId: sync.companyId }, 'data integrity: matching after a sync failed'),
      );
    },
    digests: agedVersionDigests(agedThreads, store, { threadFrom: options.reports?.digestThreadFrom }),
    jobs,
    credentials,
    allowPrivate,
    retainSupersededMs: jobOptions.retainSupersededMs,
    publicUrl: urls.publicUrl,
    metrics,
    log: server.log,
  });
  const pushTiming = { sandboxDelayMs: options.push?.sandboxDelayMs ?? 1000, minuteMs: options.push?.minuteMs ?? 60_000 };
  const handlers = {
    [SYNC_JOB]: syncJob.sync,
    [DELETE_VERSION_JOB]: syncJob.deleteVersion,
    [PUSH_JOB]: createPushJob({
      db,
      jobs,
      ...pushTiming,
      publicUrl: urls.publicUrl,
      credentials,
      allowPrivate,
      metrics,
      faults: emulator?.faults.push,
    }),
    ...webhookJobHandlers({ db, jobs, clients, options: options.webhooks, log: server.log, metrics, faults: emulator?.faults.webhooks }),
    ...emulator?.handlers,
  };
  watchStore(metrics, { jobs, kinds: Object.keys(handlers), pgPool: store.pgPool, log: server.log });
  const wakeJobs = () => jobs.wake();
  const deleteOwned = deletionOfOwned(jobs, emulator?.deletionSteps ?? []);
  const queueFirstSyncs = queueFirstSyncsOf(jobs);
  const companies = createCompaniesService({
    db,
    dialect,
    lists,
    jobs,
    wakeJobs,
    deleteOwned,
    credentials,
    allowPrivate,
    onCreated: emulator?.companyCreated,
    ...urls,
  });
  for (const schema of [PullOperation, SyncSetting, PushOperation, PushOption]) server.addSchema(schema);

  const integrations = createIntegrationsService({ db, dialect, lists, ...urls });
  registerHealthRoutes(server, { db });
  registerFrontDoor(server);
  if (options.metrics?.token) registerMetricsRoute(server, { metrics, token: options.metrics.token });
  registerDocsRoutes(server);
  registerProfileRoutes(server, { clients });
  const apiKeys = createApiKeysService({ db });
  registerApiKeyRoutes(server, { apiKeys });
  registerCompanyRoutes(server, { companies });
  registerIntegrationRoutes(server, { integrations });
  const connectionDeps = {
    db,
    dialect,
    lists,
    jobs,
    wakeJobs,
    companies,
    deleteOwned,
    queueFirstSyncs,
    credentials,
    allowPrivate,
    scenarios: emulator?.scenarios,
    ...urls,
  };
  const connections = createConnectionsService(connectionDeps);
  registerConnectionRoutes(server, { connections });
  // Statement files are read on a thread of their own (src/uploads/intake.ts).
  const intake = createIntakeRunner({ threads: true });
  server.addHook('onClose', async () => intake.close());
  await registerFileRoutes(server, { files: createFilesService({ db, jobs, wakeJobs, companies, connections, intake }) });
  registerUploadSessionRoutes(server, { sessions: createUploadSessionsService({ db, jobs, wakeJobs, connections }) });
  const syncs = createSyncsService({ db, dialect, lists, jobs, wakeJobs, companies });
  registerSyncRoutes(server, { syncs });
  registerSyncSettingsRoutes(server, { db, companies });
  const dataSets = createDataSetsService({ db, dialect, lists, companies, records });
  registerDataSetRoutes(server, { dataSets });
  registerFinancialsRoutes(server, { dataSets });
  registerAgedReportRoutes(server, {
    agedReports: createAgedReportsService({ dataSets, records, threads: agedThreads, threadFrom: options.reports?.threadFrom }),
  });
  dataIntegrity = createDataIntegrityService({ dataSets, records });
  registerDataIntegrityRoutes(server, { dataIntegrity });
  registerCommerceMetricsRoutes(server, { commerceMetrics: createCommerceMetricsService({ dataSets, records }) });
  registerEnhancedInvoicesRoutes(server, {
    enhancedInvoices: createEnhancedInvoicesService({ dataSets, records, companies, integrity: dataIntegrity }),
  });
  registerEnhancedFinancialsRoutes(server, {
    enhanced: createEnhancedFinancialsService({ db, jobs, wakeJobs, publicUrl: urls.publicUrl, companies, dataSets, records }),
  });
  registerLinkRoutes(server, { ...connectionDeps, connections, clients, intake });
  const push = createPushService({ db, dialect, lists, jobs, wakeJobs, companies, credentials, allowPrivate, ...pushTiming });
  registerPushRoutes(server, { push });
  registerWebhooks(server, { db, allowPrivate: options.webhooks?.allowPrivate });
  emulator?.registerRoutes(server, {
    clients,
    publicUrl: urls.publicUrl,
    company: (client, id) => companies.get(client, id),
    wakeJobs,
    deleteOwned,
  });
  registerPortalRoutes(server, {
    db,
    sessions: createPortalSessions({ sessions: createPortalSessionsStore(db), apiKeys: apiKeysStore }),
    rateCounters,
    docsUrl,
    publicUrl: urls.publicUrl,
    companies,
    connections,
    syncs,
    push,
    dataSets,
    integrations,
    clients,
    apiKeys,
    usage,
    webhooks: createWebhooksService({ db, allowPrivate: options.webhooks?.allowPrivate, jobs, wakeJobs }),
  });

  if (runsJobs) {
    await jobs.start(handlers);
    const schedule = setInterval(() => {
      // Companies on a test clock are left to its advances.
      (emulator ? emulator.realTimeSchedule() : Promise.resolve({}))
        .then((scope) => queueDueSyncs(db, jobs, clockFor({}).now(), scope))
        .then((queued) => queued > 0 && jobs.wake())
        .catch((err) => server.log.error({ err }, 'queueing scheduled syncs failed'));
    }, jobOptions.scheduleEveryMs ?? 60_000);
    schedule.unref();
    server.addHook('onClose', async () => {
      clearInterval(schedule);
      await jobs.stop();
      await writers.close();
    });
  }

  return {
    server,
    metrics,
    publicUrl: () => publicUrl,
    async listen(port, host) {
      await server.listen({ port, host });
      if (!options.publicUrl) {
        const address = server.server.address();
        const actualPort = typeof address === 'object' && address ? address.port : port;
        const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
        publicUrl = `http://${shownHost}:${actualPort}`;
      }
      return publicUrl;
    },
  };
}
