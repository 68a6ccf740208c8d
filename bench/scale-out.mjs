// `npm run bench:scale-out`: read throughput through 1 and then 2 API processes (`serve --role api`) on one
// Postgres, with one worker process for the sync. Builds one Sandbox company of BENCH_INVOICES invoices (20,000
// by default), then runs each read scenario with autocannon for BENCH_DURATION seconds at BENCH_CONNECTIONS
// connections in all: all against one API process, then split evenly over two. Writes
// bench/results/scale-out-latest.json and the scale-out section of docs/benchmarks.md. Reports, never asserts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESULTS_DIR } from './lib/config.mjs';
import { createStore } from './lib/store.mjs';
import { createClient, freePort, startServer, waitUntilServing } from './lib/server.mjs';
import { createApi } from './lib/api.mjs';
import { measure, round } from './lib/load.mjs';
import { replaceDocsSection } from './lib/report.mjs';
import { closeConnections } from './lib/http.mjs';

const say = (line = '') => process.stdout.write(`${line}\n`);
const fmt = (value) => Math.round(value).toLocaleString('en');

function knob(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const databaseUrl = process.env.DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';
if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('DATABASE_URL must be a postgres:// URL: scale-out runs on Postgres');
const knobs = {
  invoices: knob('BENCH_INVOICES', 20_000),
  durationSeconds: knob('BENCH_DURATION', 10),
  connections: knob('BENCH_CONNECTIONS', 10),
};

const cleanups = [];
async function cleanUp() {
  while (cleanups.length)
    await cleanups
      .pop()()
      .catch((err) => process.stderr.write(`cleanup: ${err.message}\n`));
}
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

async function startApi(store, authorization) {
  const server = startServer({ databaseUrl: store.databaseUrl, port: await freePort(), role: 'api' });
  cleanups.push(() => server.stop());
  await waitUntilServing(server, authorization);
  return server;
}

/** Runs `connections` in all, split evenly over the servers, at once; sums what they got. */
async function readThrough(servers, path, headers) {
  const each = Math.max(1, Math.floor(knobs.connections / servers.length));
  const runs = await Promise.all(
    servers.map((s) => measure({ url: s.baseUrl + path, headers, connections: each, durationSeconds: knobs.durationSeconds })),
  );
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const seconds = Math.max(...runs.map((r) => r.seconds));
  return {
    requestsPerSecond: round(requests / seconds, 1),
    latencyP99Ms: Math.max(...runs.map((r) => r.latencyP99Ms ?? 0)),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}

async function main() {
  say(
    `Scale-out benchmark: ${fmt(knobs.invoices)} invoices on Postgres, ${knobs.connections} connections, ${knobs.durationSeconds} s per scenario`,
  );
  const store = await createStore({ postgresUrl: databaseUrl });
  cleanups.push(() => store.destroy());
  // The worker migrates the store and runs the sync; API processes run no jobs.
  const worker = startServer({ databaseUrl: store.databaseUrl, role: 'worker' });
  cleanups.push(() => worker.stop());
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const { apiKey } = await createClient(store.databaseUrl, 'Scale-out bench');
  const first = await startApi(store, `Basic ${Buffer.from(apiKey).toString('base64')}`);
  const api = createApi(first.baseUrl, apiKey);

  const company = await api.post('/companies', { name: 'Scale-out bench' });
  await api.setFirstLinkTypes(company.id, ['invoices']);
  const connection = await api.post(`/companies/${company.id}/connections`, { platformKey: 'mqjo' });
  await api.put(`/companies/${company.id}/connections/${connection.id}/authorization`, { invoices: String(knobs.invoices) });
  const synced = performance.now();
  await api.waitForIdle(company.id);
  say(`Synced ${fmt(knobs.invoices)} invoices in ${round((performance.now() - synced) / 1000, 1)} s`);
  const someInvoice = (await api.get(`/companies/${company.id}/data/invoices?pageSize=1&page=7`)).results[0].id;

  const scenarios = [
    { name: 'invoices page 1 (pageSize 100)', path: `/companies/${company.id}/data/invoices?page=1&pageSize=100` },
    {
      name: 'invoices, status=Paid, page 1',
      path: `/companies/${company.id}/data/invoices?page=1&pageSize=100&query=${encodeURIComponent('status=Paid')}`,
    },
    { name: 'one invoice by id', path: `/companies/${company.id}/data/invoices/${someInvoice}` },
    { name: '/companies page 1', path: '/companies?page=1&pageSize=100' },
  ];
  const headers = { authorization: api.authorization };
  const results = [];
  for (const s of scenarios) results.push({ scenario: s.name, one: await readThrough([first], s.path, headers) });
  const second = await startApi(store, api.authorization);
  for (const [i, s] of scenarios.entries()) results[i].two = await readThrough([first, second], s.path, headers);

  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.versions.node}, ` +
      `${fmt(knobs.invoices)} invoices, ${knobs.connections} connections in all, ${knobs.durationSeconds} s per scenario; ` +
      `Postgres, the API processes and autocannon share the machine. Command: \`${commandOf()}\`.`,
    '',
    '| Scenario | 1 API process, req/s | 2 API processes, req/s | ratio | p99 (1 → 2), ms |',
    '|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.scenario} | ${fmt(r.one.requestsPerSecond)} | ${fmt(r.two.requestsPerSecond)} | ${round(r.two.requestsPerSecond / r.one.requestsPerSecond, 2)} | ${r.one.latencyP99Ms} → ${r.two.latencyP99Ms} |`,
    ),
  ];
  const bad = results.flatMap((r) => [r.one, r.two]).reduce((sum, m) => sum + m.non2xx + m.errors, 0);
  if (bad > 0) lines.push('', `**${bad} requests failed or answered non-2xx during the run.**`);
  for (const line of lines) say(line);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, 'scale-out-latest.json');
  fs.writeFileSync(file, `${JSON.stringify({ knobs, cores: os.cpus().length, results }, null, 2)}\n`);
  replaceDocsSection('scale-out', lines.join('\n'));
  say(`\nWrote ${path.relative(process.cwd(), file)} and the scale-out section of docs/benchmarks.md`);
}

function commandOf() {
  const env = [];
  if (knobs.invoices !== 20_000) env.push(`BENCH_INVOICES=${knobs.invoices}`);
  if (knobs.durationSeconds !== 10) env.push(`BENCH_DURATION=${knobs.durationSeconds}`);
  if (knobs.connections !== 10) env.push(`BENCH_CONNECTIONS=${knobs.connections}`);
  return [...env, 'npm run bench:scale-out'].join(' ');
}

main()
  .catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    closeConnections();
    await cleanUp();
  });
