// `npm run bench`: the benchmark suite (docs/benchmarks.md). Builds a Sandbox company of BENCH_INVOICES invoices on
// a fresh store through the API, measures the ingest, the reads (with autocannon, next to a plain node:http
// ceiling), reads during a second sync and the start time, then writes bench/results/<store>-latest.json and the
// store's section of docs/benchmarks.md. It reports and never asserts: missed targets still exit 0.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadKnobs } from './lib/config.mjs';
import { assertReachable, createStore } from './lib/store.mjs';
import { createClient, freePort, sampleRss, startServer, waitUntilServing } from './lib/server.mjs';
import { createApi, LISTS, pool } from './lib/api.mjs';
import { measure, round, startCeiling, warmUp } from './lib/load.mjs';
import { ingestTargets, readTarget, startTarget } from './lib/targets.mjs';
import { renderSideBySide, replaceDocsSection, writeDocsSection, writeResultsJson } from './lib/report.mjs';
import { bareInsertLoop } from './lib/bare-insert.mjs';
import { closeConnections } from './lib/http.mjs';

const say = (line = '') => process.stdout.write(`${line}\n`);
const fmt = (value) => Math.round(value).toLocaleString('en');
const mib = (bytes) => `${Math.round(bytes / 2 ** 20)} MiB`;
const seconds = (ms) => round(ms / 1000, 2);

/** Prints at most one progress line every `everyMs`. */
function throttled(everyMs) {
  let last = performance.now();
  return (line) => {
    if (performance.now() - last < everyMs) return;
    last = performance.now();
    say(line);
  };
}

function machineFacts() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    totalMemoryBytes: os.totalmem(),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.versions.node,
  };
}

/** Cleanups run once, on the way out or on Ctrl-C, newest first. */
const cleanups = [];
async function cleanUp() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (err) {
      process.stderr.write(`cleanup: ${err.message}\n`);
    }
  }
}
process.once('SIGINT', () => {
  say('\nInterrupted: stopping the server and removing the store.');
  void cleanUp().then(() => process.exit(130));
});

/** The local Postgres the suite's Postgres leg uses, when `--stores` names postgres and DATABASE_URL is unset. */
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

async function main() {
  const { values } = parseArgs({ options: { stores: { type: 'string' } } });
  const base = loadKnobs();
  const stores = values.stores === undefined ? [base.store] : values.stores.split(',').map((s) => s.trim());
  for (const kind of stores) {
    if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`--stores takes sqlite and postgres, not "${kind}"`);
  }
  const postgresUrl = base.postgresUrl ?? DEFAULT_POSTGRES_URL;
  // Before an hour of SQLite: a Postgres that cannot be reached would lose the side-by-side at the end.
  if (stores.includes('postgres')) await assertReachable(postgresUrl);
  const runs = [];
  for (const kind of stores) {
    const knobs = kind === 'sqlite' ? { ...base, store: 'sqlite', postgresUrl: undefined } : { ...base, store: 'postgres', postgresUrl };
    runs.push(await runStore(knobs, values.stores === undefined ? undefined : stores));
    await cleanUp();
  }
  if (runs.length > 1) {
    const section = renderSideBySide(runs, stores);
    say(`\n${section}`);
    say(`\nDocs:    ${replaceDocsSection('side-by-side', section)}`);
  }
}

/** One store's run: a fresh store, the ingest, the reads, the re-syncs, the start time and the bare insert loop. */
async function runStore(knobs, stores) {
  const machine = machineFacts();
  say(
    `Ledgerport benchmark: ${knobs.invoices.toLocaleString('en')} invoices, ${knobs.companies.toLocaleString('en')} companies, ` +
      `${knobs.connections} connections, ${knobs.durationSeconds} s per scenario`,
  );
  say(`Machine: ${machine.cores} cores (${machine.cpuModel}), ${mib(machine.totalMemoryBytes)}, Node ${machine.node}`);

  const store = await createStore(knobs);
  cleanups.push(() => store.destroy());
  say(`Store: ${store.description}`);

  // Two clients on the standard plan (no company limit, no daily quota, no burst limit, so nothing throttles the
  // load): one holds the Sandbox company, the other the many companies of the /companies scenarios.
  const benchClient = await createClient(store.databaseUrl, 'Bench');
  const companiesClient = await createClient(store.databaseUrl, 'Bench companies');

  let server = startServer({ databaseUrl: store.databaseUrl, port: await freePort() });
  cleanups.push(() => server.stop());
  const api = createApi(server.baseUrl, benchClient.apiKey);
  await waitUntilServing(server, api.authorization);

  const ingest = await ingestPhase(api, server, knobs);
  // Right after the ingest, before any read load has grown the server's heap: what a re-sync alone costs.
  const quietSync = await resync(api, server, ingest.companyId);
  const reads = await readPhase(api, server, knobs, ingest.companyId, companiesClient);
  const secondSync = await readDuringSync(api, server, knobs, ingest.companyId, reads.page1, reads.ceiling);

  say('\nStart time: stopping the server and starting it again on the same store');
  await server.stop();
  server = startServer({ databaseUrl: store.databaseUrl, port: await freePort() });
  const startMs = await waitUntilServing(server, api.authorization);
  const st = startTarget(startMs);
  say(`  spawn to first 200 of GET /companies: ${Math.round(startMs)} ms (target ${st.text}: ${st.met ? 'met' : 'NOT met'})`);
  await server.stop();
  const storeBytes = await store.sizeBytes();

  say('\nBare insert loop: the same invoice documents, one transaction, 1,000 rows per INSERT');
  const bare = await bareInsertLoop(store);
  say(`  ${fmt(bare.records)} documents in ${round(bare.seconds, 2)} s: ${fmt(bare.recordsPerSecond)} records/s`);

  const results = {
    date: new Date().toISOString(),
    machine,
    store: { kind: store.kind, description: store.description },
    knobs: {
      invoices: knobs.invoices,
      durationSeconds: knobs.durationSeconds,
      connections: knobs.connections,
      companies: knobs.companies,
      pageSize: 100,
    },
    ingest: { invoices: ingest.invoices, otherTypes: ingest.otherTypes },
    ceiling: reads.ceiling,
    scenarios: [...reads.scenarios, secondSync.reads],
    secondSync: secondSync.sync,
    quietResync: quietSync,
    bareInsert: { records: bare.records, seconds: round(bare.seconds, 2), recordsPerSecond: round(bare.recordsPerSecond, 1) },
    start: { ms: round(startMs, 1), target: st },
    storeBytes,
  };
  say(`\nResults: ${writeResultsJson(results)}`);
  say(`Docs:    ${writeDocsSection(results, stores)}`);
  return results;
}

/** The 1,000,000-invoice sync (timed, RSS sampled), then every other data type at its proportional size. */
async function ingestPhase(api, server, knobs) {
  say(`\nIngest: a Sandbox company linked with {"invoices": "${knobs.invoices}"}, only invoices fetched on first link`);
  const company = await api.post('/companies', { name: 'Bench Sandbox company' });
  await api.setFirstLinkTypes(company.id, ['invoices']);
  const connection = await api.post(`/companies/${company.id}/connections`, { platformKey: 'mqjo' });

  const rss = sampleRss(server.pid);
  const started = performance.now();
  await api.put(`/companies/${company.id}/connections/${connection.id}/authorization`, { invoices: String(knobs.invoices) });
  const progress = throttled(5000);
  const status = await api.waitForDataType(company.id, 'invoices', {
    onProgress: (s) => progress(`  invoices: ${s?.currentStatus ?? 'Initial'} (${Math.round((performance.now() - started) / 1000)} s)`),
  });
  const wallMs = performance.now() - started;
  const peakRssBytes = rss.stop();
  if (status.currentStatus !== 'Complete') throw new Error(`the invoices sync ended ${status.currentStatus}`);
  const records = (await api.get(`/companies/${company.id}/data/invoices?pageSize=1`)).totalResults;
  const invoices = { records, wallSeconds: seconds(wallMs), recordsPerSecond: round(records / (wallMs / 1000), 1), peakRssBytes };
  const it = ingestTargets(invoices);
  say(
    `  ${fmt(records)} invoices in ${invoices.wallSeconds} s: ${fmt(invoices.recordsPerSecond)} records/s ` +
      `(target ${it.recordsPerSecond.text}: ${it.recordsPerSecond.met ? 'met' : 'NOT met'}), ` +
      `peak RSS ${mib(peakRssBytes)} (target ${it.peakRss.text}: ${it.peakRss.met ? 'met' : 'NOT met'})`,
  );

  // data/all queues the types fetched on first link, so the settings now name every type but invoices (which
  // would otherwise be synced a second time here).
  say('\nIngest: every other data type (POST /companies/{id}/data/all)');
  const others = (await api.get(`/companies/${company.id}/syncSettings`)).settings.map((s) => s.dataType).filter((t) => t !== 'invoices');
  await api.setFirstLinkTypes(company.id, others);
  const othersRss = sampleRss(server.pid);
  const othersStarted = performance.now();
  await api.post(`/companies/${company.id}/data/all`);
  const othersProgress = throttled(10_000);
  const statuses = await api.waitForIdle(company.id, {
    onProgress: (all, active) => {
      const done = Object.values(all).filter((s) => s.dataType !== 'invoices' && !active.includes(s)).length;
      othersProgress(
        `  ${done} of ${Object.keys(all).length - 1} types done, syncing: ${active.map((s) => s.dataType).join(', ')} ` +
          `(${Math.round((performance.now() - othersStarted) / 1000)} s)`,
      );
    },
  });
  const othersMs = performance.now() - othersStarted;
  const byType = {};
  for (const [dataType, s] of Object.entries(statuses)) if (dataType !== 'invoices') byType[dataType] = { status: s.currentStatus };
  for (const list of LISTS) {
    if (!byType[list.dataType] || byType[list.dataType].status !== 'Complete') continue;
    const base = list.scope === 'company' ? `/companies/${company.id}` : `/companies/${company.id}/connections/${connection.id}`;
    byType[list.dataType].records = (await api.get(`${base}/data/${list.segment}?pageSize=1`)).totalResults;
  }
  const otherTypes = { wallSeconds: seconds(othersMs), peakRssBytes: othersRss.stop(), byType };
  const total = Object.values(byType).reduce((sum, t) => sum + (t.records ?? 0), 0);
  say(
    `  ${Object.keys(byType).length} types in ${otherTypes.wallSeconds} s, ${fmt(total)} records in the listed types, peak RSS ${mib(otherTypes.peakRssBytes)}`,
  );
  for (const [dataType, t] of Object.entries(byType))
    say(`    ${dataType.padEnd(20)} ${t.status.padEnd(10)} ${t.records === undefined ? '' : fmt(t.records)}`);
  return { companyId: company.id, invoices, otherTypes };
}

/** The ceiling and every idle read scenario. */
async function readPhase(api, server, knobs, companyId, companiesClient) {
  const invoices = `/companies/${companyId}/data/invoices`;
  const pageUrl = (params) => `${invoices}?${new URLSearchParams({ pageSize: '100', ...params })}`;
  const lastPage = (total, pageSize = 100) => Math.max(1, Math.ceil(total / pageSize));
  const totalOf = async (params) => (await api.get(pageUrl({ ...params, pageSize: '1' }))).totalResults;

  // Real totals decide the middle and last pages.
  const listTotal = await totalOf({});
  const paidTotal = await totalOf({ query: 'status=Paid' });
  const compound = { query: 'amountDue>1000&&currency=GBP', orderBy: '-issueDate' };
  const compoundTotal = await totalOf(compound);
  const middle = Math.max(1, Math.floor(lastPage(listTotal) / 2));
  const middlePage = await api.get(pageUrl({ page: String(middle) }));
  const invoiceId = middlePage.results[0]?.id;
  say(`\nReads: ${fmt(listTotal)} invoices, ${fmt(paidTotal)} with status=Paid, ${fmt(compoundTotal)} matching ${compound.query}`);

  const page1 = await api.raw(pageUrl({ page: '1' }));
  if (page1.status !== 200) throw new Error(`invoices page 1 answered ${page1.status}`);
  const bodyBytes = page1.bytes.length;

  const headers = { authorization: api.authorization };
  const run = (url, extra = {}) =>
    measure({ url, headers, connections: knobs.connections, durationSeconds: knobs.durationSeconds, ...extra });

  const ceilingServer = await startCeiling(bodyBytes);
  const ceiling = { bodyBytes, ...(await run(ceilingServer.url, { headers: {} })) };
  await ceilingServer.stop();
  say(`  ${`ceiling (node:http, ${fmt(bodyBytes)}-byte body)`.padEnd(58)} ${line(ceiling)}`);

  const scenarios = [];
  let page1Figures;
  const scenario = async (key, name, path, client = api) => {
    const figures = await run(server.baseUrl + path, { headers: { authorization: client.authorization } });
    const entry = { key, name, path, ...figures, ratioToCeiling: round(figures.requestsPerSecond / ceiling.requestsPerSecond, 3) };
    if (key === 'list-page1') page1Figures = entry;
    entry.ratioToPage1 = round(entry.requestsPerSecond / page1Figures.requestsPerSecond, 3);
    entry.target = readTarget(key, entry, page1Figures);
    scenarios.push(entry);
    say(
      `  ${name.padEnd(58)} ${line(entry)}${entry.target ? `  [${entry.target.met ? 'met' : 'NOT met'}: ${entry.target.detail}, target ${entry.target.text}]` : ''}`,
    );
  };

  await scenario('list-page1', 'invoices page 1', pageUrl({ page: '1' }));
  await scenario('list-middle', `invoices middle page (${middle})`, pageUrl({ page: String(middle) }));
  await scenario('list-last', `invoices last page (${lastPage(listTotal)})`, pageUrl({ page: String(lastPage(listTotal)) }));
  await scenario('paid-page1', 'status=Paid page 1', pageUrl({ page: '1', query: 'status=Paid' }));
  await scenario(
    'paid-last',
    `status=Paid last page (${lastPage(paidTotal)})`,
    pageUrl({ page: String(lastPage(paidTotal)), query: 'status=Paid' }),
  );
  await scenario('compound-page1', `${compound.query}, orderBy=${compound.orderBy}, page 1`, pageUrl({ page: '1', ...compound }));
  await scenario(
    'compound-deep',
    `the same, last page (${lastPage(compoundTotal)})`,
    pageUrl({ page: String(lastPage(compoundTotal)), ...compound }),
  );
  await scenario('pagesize-5000', 'invoices pageSize=5000, page 1', `${invoices}?page=1&pageSize=5000`);
  if (invoiceId) await scenario('by-id', 'one invoice by id', `${invoices}/${encodeURIComponent(invoiceId)}`);

  // GET /companies: a second client holding BENCH_COMPANIES companies, created through the API.
  say(`\nCompanies: creating ${knobs.companies.toLocaleString('en')} companies for a second client (20 at a time)`);
  const companiesApi = createApi(server.baseUrl, companiesClient.apiKey);
  const created = performance.now();
  const progress = throttled(5000);
  let done = 0;
  await pool(knobs.companies, 20, async (i) => {
    await companiesApi.post('/companies', { name: `Bench company ${String(i + 1).padStart(6, '0')}` });
    done += 1;
    progress(`  ${fmt(done)} created`);
  });
  say(`  ${fmt(knobs.companies)} created in ${seconds(performance.now() - created)} s`);
  const companiesTotal = (await companiesApi.get('/companies?pageSize=1')).totalResults;
  await scenario(
    'companies-page1',
    `GET /companies page 1 (${fmt(companiesTotal)} companies)`,
    '/companies?page=1&pageSize=100',
    companiesApi,
  );
  await scenario(
    'companies-last',
    `GET /companies last page (${lastPage(companiesTotal)})`,
    `/companies?page=${lastPage(companiesTotal)}&pageSize=100`,
    companiesApi,
  );

  return { ceiling, scenarios, page1: page1Figures };
}

/**
 * Syncs the invoices once more, timed from the queue request to `Complete`, with the server's RSS sampled; `alongside`
 * runs while the sync does and is handed the sync's outcome (a promise) to stop on. A sync that does not complete
 * stops the run: its records/s would be the previous version's count over a failed sync's time.
 */
async function timedSync(api, server, companyId, alongside = async () => undefined) {
  const rss = sampleRss(server.pid);
  const started = performance.now();
  const op = await api.post(`/companies/${companyId}/data/queue/invoices`);
  let completedAt;
  const done = api.waitForOperation(companyId, op.id).then((result) => {
    completedAt = performance.now();
    return result;
  });
  const during = await alongside(done);
  const progress = throttled(5000);
  const timer = setInterval(
    () => progress(`  waiting for the sync to complete (${Math.round((performance.now() - started) / 1000)} s)`),
    1000,
  );
  const result = await done.finally(() => clearInterval(timer));
  const peakRssBytes = rss.stop();
  if (result.status !== 'Complete') throw new Error(`the invoices sync ended ${result.status}: ${result.errorMessage ?? ''}`);
  const wallMs = completedAt - started;
  const records = (await api.get(`/companies/${companyId}/data/invoices?pageSize=1`)).totalResults;
  const sync = {
    status: result.status,
    wallSeconds: seconds(wallMs),
    records,
    recordsPerSecond: round(records / (wallMs / 1000), 1),
    peakRssBytes,
  };
  say(`  sync: ${result.status} in ${sync.wallSeconds} s, ${fmt(sync.recordsPerSecond)} records/s, peak RSS ${mib(sync.peakRssBytes)}`);
  return { sync, during };
}

/** Invoices page 1 under load while a second invoices sync runs; then that sync's wall time. */
async function readDuringSync(api, server, knobs, companyId, page1, ceiling) {
  say('\nReads during a second invoices sync');
  const url = `${server.baseUrl}/companies/${companyId}/data/invoices?page=1&pageSize=100`;
  const headers = { authorization: api.authorization };
  // Warmed before the sync is queued, so the whole sync is available to the load.
  await warmUp(url, headers);
  // The load stops when the sync completes, so only reads that overlapped a running sync are counted.
  const { sync, during: figures } = await timedSync(api, server, companyId, (done) =>
    measure({ url, headers, connections: knobs.connections, durationSeconds: knobs.durationSeconds, stopWhen: done, warm: false }),
  );
  const reads = {
    key: 'during-sync',
    name: `invoices page 1 during a sync${figures.stoppedEarly ? ` (the sync ended after ${figures.seconds} s of load)` : ''}`,
    path: `/companies/${companyId}/data/invoices?page=1&pageSize=100`,
    ...figures,
    ratioToCeiling: round(figures.requestsPerSecond / ceiling.requestsPerSecond, 3),
    ratioToPage1: round(figures.requestsPerSecond / page1.requestsPerSecond, 3),
  };
  reads.target = readTarget('during-sync', reads, page1);
  say(
    `  ${reads.name.padEnd(58)} ${line(reads)}  [${reads.target.met ? 'met' : 'NOT met'}: ${reads.target.detail}, target ${reads.target.text}]`,
  );
  return { reads, sync };
}

/** The invoices synced again with nothing else running: wall time, records/s and the server's peak RSS. */
async function resync(api, server, companyId) {
  say('\nRe-sync: the invoices synced again, nothing else running');
  return (await timedSync(api, server, companyId)).sync;
}

function line(f) {
  const warn = [
    f.non2xx || f.errors ? `  ⚠ non-2xx ${f.non2xx}, errors ${f.errors}` : '',
    f.requests === 0
      ? `  ⚠ no request completed in ${f.seconds} s${f.warmUpMs === undefined ? '' : ` (the warm-up request alone took ${f.warmUpMs} ms)`}`
      : '',
  ].join('');
  const ms = (value) => String(value ?? '—').padStart(4);
  return (
    `${fmt(f.requestsPerSecond).padStart(7)} req/s  p50 ${ms(f.latencyP50Ms)} ms  p99 ${ms(f.latencyP99Ms)} ms  ` +
    `${String(f.megabytesPerSecond).padStart(7)} MB/s${warn}`
  );
}

try {
  await main();
} catch (err) {
  process.stderr.write(`\nbench: ${err.stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
  closeConnections();
}
