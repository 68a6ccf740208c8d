import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/*
 * The service's Prometheus series (docs/deploy.md, "Metrics"). Every label value comes from a small fixed set
 * (route templates, platform keys, data types, statuses): never an id, a key or query text, so the number of
 * series stays bounded whatever clients send.
 */

export const METRICS_PREFIX = 'ledgerport_';

/** Route label of requests no route matched (404s, 405s): the raw URL would let clients mint series. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Webhook attempts past this number share one label value, so a long WEBHOOK_RETRY_SCHEDULE mints no series. */
const MAX_ATTEMPT_LABEL = 10;

/** Why the rate limiter refused a request (429). */
export type RateLimitReason = 'burst' | 'daily_quota';

/** How one webhook attempt went: a 2xx, another answer, or no answer at all (refused address, timeout, network). */
export type WebhookOutcome = 'delivered' | 'rejected' | 'unreachable';

export interface Metrics {
  /** This app's series plus the process's defaults. */
  registry: Registry;
  /** The text a scrape answers, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
  httpRequest(labels: { method: string; route: string; statusCode: number }, seconds: number): void;
  /** A sync ended (`outcome` is the status it ended in); `records` is the size of the version it wrote (0 unless Complete). */
  syncEnded(labels: { platform: string; dataType: string; outcome: string }, seconds: number, records: number): void;
  /** A push operation settled with `outcome` (Success, Failed, TimedOut). */
  pushSettled(labels: { platform: string; dataType: string; outcome: string }): void;
  webhookAttempt(outcome: WebhookOutcome, attempt: number): void;
  rateLimitRefused(reason: RateLimitReason): void;
}

/** prom-client defaults named `…_total` though they are gauges (see processRegistry). */
const GAUGES_NAMED_AS_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * The process's defaults (CPU, memory, event loop, GC) in a registry of their own, made once: they describe the
 * process, not an app, and prom-client's collectors start observers (GC, event-loop delay) that are never stopped,
 * so one set per process rather than one per app (tests build many apps in one process).
 */
let processDefaults: Registry | undefined;
function processRegistry(): Registry {
  if (!processDefaults) {
    processDefaults = new Registry();
    collectDefaultMetrics({ register: processDefaults, prefix: METRICS_PREFIX });
    // Three of prom-client's gauges are named `…_total`, which Prometheus keeps for counters (`promtool check
    // metrics` fails on them). Each is the sum of its per-type gauge (`…_active_handles{type}` and so on), so
    // `sum(ledgerport_nodejs_active_handles)` says the same (no series at all, rather than 0, when there is none of a
    // kind): dropped rather than renamed.
    for (const name of GAUGES_NAMED_AS_COUNTERS) processDefaults.removeSingleMetric(`${METRICS_PREFIX}${name}`);
  }
  return processDefaults;
}

/** A registry per app (never prom-client's global one): several apps in one process keep their own counts. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const http = new Histogram({
    name: `${METRICS_PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    // A page of stored records answers in about a millisecond; buckets start there.
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const syncDuration = new Histogram({
    name: `${METRICS_PREFIX}sync_duration_seconds`,
    help: 'Syncs (pull operations) that ended, by platform, data type and the status they ended in; from being requested to the end, queue wait included.',
    labelNames: ['platform', 'data_type', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  });
  const syncRecords = new Counter({
    name: `${METRICS_PREFIX}sync_records_total`,
    help: 'Records in the data-set versions syncs wrote, by platform, data type and outcome.',
    labelNames: ['platform', 'data_type', 'outcome'] as const,
    registers,
  });
  const pushes = new Counter({
    name: `${METRICS_PREFIX}push_operations_total`,
    help: 'Push operations (writes to platforms) settled, by platform, data type and outcome.',
    labelNames: ['platform', 'data_type', 'outcome'] as const,
    registers,
  });
  const webhooks = new Counter({
    name: `${METRICS_PREFIX}webhook_deliveries_total`,
    help: `Webhook delivery attempts, by outcome and attempt number (${MAX_ATTEMPT_LABEL}+ for later ones).`,
    labelNames: ['outcome', 'attempt'] as const,
    registers,
  });
  const refusals = new Counter({
    name: `${METRICS_PREFIX}rate_limit_refusals_total`,
    help: "Requests refused with 429 by a client's rate limits, by the limit exceeded.",
    labelNames: ['reason'] as const,
    registers,
  });

  return {
    registry,
    async scrape() {
      const merged = Registry.merge([processRegistry(), registry]);
      return { contentType: merged.contentType, text: await merged.metrics() };
    },
    httpRequest({ method, route, statusCode }, seconds) {
      http.observe({ method, route, status_code: String(statusCode) }, seconds);
    },
    syncEnded({ platform, dataType, outcome }, seconds, records) {
      const labels = { platform, data_type: dataType, outcome };
      syncDuration.observe(labels, seconds);
      syncRecords.inc(labels, records);
    },
    pushSettled({ platform, dataType, outcome }) {
      pushes.inc({ platform, data_type: dataType, outcome });
    },
    webhookAttempt(outcome, attempt) {
      webhooks.inc({ outcome, attempt: attempt < MAX_ATTEMPT_LABEL ? String(attempt) : `${MAX_ATTEMPT_LABEL}+` });
    },
    rateLimitRefused(reason) {
      refusals.inc({ reason });
    },
  };
}
