// `npm run fuzz -- --requests 50000 [--seed N] [--concurrency 16] [--keep-going]`: the hostile-request run of
// test/fuzz/hostile.test.ts, long, against a real server process (`node dist/main.js` on a fresh SQLite file, or on a
// new Postgres schema with DATABASE_URL), measuring the process's resident memory before, at the peak of, and 10 s
// after the run. Exits 1 on any problem (a 5xx, a refusal outside the error body, a hang, a 2xx for an invalid
// paging value, an unhealthy server, a changed fixture) or when memory 10 s after is over 2 × start + 100 MB.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createStore } from './lib/store.mjs';
import { createClient, freePort, readRss, readRssParts, sampleRss, startServer, waitUntilServing } from './lib/server.mjs';
import { loadKnobs } from './lib/config.mjs';
import { prepareFixture } from '../test/fuzz/fixture.js';
import { operationsOf, runHostileRequests } from '../test/fuzz/hostile-requests.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '50000' },
    seed: { type: 'string', default: '20261124' },
    concurrency: { type: 'string', default: '16' },
    'keep-going': { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
for (const [name, value] of Object.entries({ requests, seed, concurrency })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
}

/** The kind of a problem, for the summary. */
function categoryOf(problem: string): string {
  if (/^answered 5/.test(problem)) return 'answers >= 500';
  if (/^no answer in time/.test(problem)) return 'hangs';
  if (/^connection closed/.test(problem)) return 'connections closed without an answer';
  if (/^\d{3} for (page|pageSize)=/.test(problem)) return '2xx for an invalid paging value';
  return 'refusals outside the error body';
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const say = (line: string) => console.log(line);
/** V8's heap (reserved and in use) and memory held outside it by JS objects (Buffers), from the server's /metrics. */
async function heap(): Promise<string> {
  const res = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  const text = await res.text();
  const value = (name: string) => Number(new RegExp(`^ledgerport_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return `V8 heap ${mb(value('nodejs_heap_size_total_bytes'))} MB reserved, ${mb(value('nodejs_heap_size_used_bytes'))} MB used; external ${mb(value('nodejs_external_memory_bytes'))} MB`;
}
const parts = (pid: number) => {
  const { anon, file, shmem } = readRssParts(pid);
  return `anonymous ${mb(anon)} MB, file-backed ${mb(file)} MB, shared ${mb(shmem)} MB`;
};

const store = await createStore(loadKnobs());
const port = await freePort();
const { apiKey } = await createClient(store.databaseUrl, 'Fuzz client');
const auth = `Basic ${Buffer.from(apiKey).toString('base64')}`;
// A metrics token, so the heap's share of the resident memory can be read from the server's own /metrics.
const metricsToken = randomBytes(24).toString('hex');
const server = startServer({ databaseUrl: store.databaseUrl, port, env: { METRICS_TOKEN: metricsToken } });
let failed = false;
try {
  await waitUntilServing(server, auth);
  const fixture = await prepareFixture(server.baseUrl, auth);
  const throwaway = await prepareFixture(server.baseUrl, auth, 'Fuzz throwaway');
  const operations = operationsOf(await (await fetch(`${server.baseUrl}/openapi.json`)).json());
  const before = await fixture.snapshot();
  // Let the fixture's sync work settle before the starting figure is taken.
  await new Promise((r) => setTimeout(r, 5_000));
  const startRss = readRss(server.pid!);
  say(`fuzz: ${store.description}; seed ${seed}; ${requests} requests, ${concurrency} at a time, over ${operations.length} operations`);
  say(`fuzz: server RSS at start ${mb(startRss)} MB (${parts(server.pid!)}; ${await heap()})`);
  const peak = sampleRss(server.pid!);
  const started = performance.now();
  let unhealthy = 0;
  let batches = 0;
  let stats;
  try {
    stats = await runHostileRequests(
      { url: server.baseUrl, auth, fixtureValues: fixture.values, throwawayValues: throwaway.values },
      operations,
      {
        count: requests,
        concurrency,
        seed,
        keepGoing: values['keep-going'],
        onBatch: async (progress) => {
          if (++batches % 50 !== 0) return;
          if ((await fetch(`${server.baseUrl}/healthz`)).status !== 200) unhealthy++;
          if (batches % 500 === 0) say(`  ${progress.requests} requests, RSS ${mb(readRss(server.pid!))} MB`);
        },
      },
    );
  } catch (err) {
    failed = true;
    say(String((err as Error).message ?? err).slice(0, 20_000));
  }
  const seconds = (performance.now() - started) / 1000;
  const peakRss = peak.stop();
  await new Promise((r) => setTimeout(r, 10_000));
  const afterRss = readRss(server.pid!);
  const afterParts = `${parts(server.pid!)}; ${await heap()}`;
  const healthy = (await fetch(`${server.baseUrl}/healthz`)).status === 200;
  const fixtureSame = (await fixture.snapshot()) === before;
  const limit = 2 * startRss + 100 * 1024 * 1024;
  if (stats) {
    say(
      `fuzz: ${stats.requests} requests in ${seconds.toFixed(1)} s (${Math.round(stats.requests / seconds)}/s); answers by status ${JSON.stringify(stats.byStatus)}`,
    );
    if (stats.problems.length > 0) failed = true;
    const kinds = new Map<string, { count: number; example: string }>();
    for (const { problem } of stats.problems) {
      const kind = categoryOf(problem);
      const seen = kinds.get(kind) ?? { count: 0, example: problem.slice(0, 120) };
      seen.count++;
      kinds.set(kind, seen);
    }
    for (const [kind, { count, example }] of [...kinds].sort((a, b) => b[1].count - a[1].count))
      say(`  ${count} × ${kind} (e.g. ${example})`);
    say(
      `fuzz: problems ${stats.problems.length}; 5xx ${Object.entries(stats.byStatus)
        .filter(([s]) => Number(s) >= 500)
        .reduce((n, [, c]) => n + c, 0)}; hangs ${stats.byStatus.hang ?? 0}`,
    );
  }
  say(
    `fuzz: RSS start ${mb(startRss)} MB, peak ${mb(peakRss)} MB, 10 s after ${mb(afterRss)} MB (${afterParts}) (limit 2 × start + 100 MB = ${mb(limit)} MB)`,
  );
  say(`fuzz: health checks failed during the run: ${unhealthy}; healthy after: ${healthy}; fixture unchanged: ${fixtureSame}`);
  if (!healthy || !fixtureSame || unhealthy > 0 || afterRss > limit) failed = true;
} finally {
  await server.stop();
  await store.destroy();
}
say(failed ? 'fuzz: FAILED' : 'fuzz: passed');
process.exitCode = failed ? 1 : 0;
