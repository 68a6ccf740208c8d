// `npm run bench:integrity`: data integrity over a Sandbox company whose books and bank tell one story
// (docs/sandbox-banking-commerce.md): the accounting and Banking Sandboxes linked with BENCH_INVOICES invoices
// (default 80,000: about 136,000 account transactions and 102,000 bank lines), on a fresh store (SQLite, or a new
// schema on DATABASE_URL). After the syncs, a new server process (nothing in memory) is asked for the summaries: the
// time is reading both sides from the store and matching them (issue 31's target: 100,000 × 100,000 under 30 s on
// SQLite). Then a page of details and the status, on what that read kept. It reports and never asserts.
import { loadKnobs } from './lib/config.mjs';
import { createStore } from './lib/store.mjs';
import { createClient, freePort, readRss, startServer, waitUntilServing } from './lib/server.mjs';
import { createApi } from './lib/api.mjs';

const say = (line = '') => process.stdout.write(`${line}\n`);
const knobs = loadKnobs();
const invoices = process.env.BENCH_INVOICES ? knobs.invoices : 80_000;
const store = await createStore(knobs);
const { apiKey } = await createClient(store.databaseUrl, 'Data integrity bench');
const INPUTS = ['accountTransactions', 'bankAccounts', 'banking-transactions', 'banking-accounts'];

async function serve() {
  const port = await freePort();
  const server = startServer({ databaseUrl: store.databaseUrl, port });
  const api = createApi(`http://127.0.0.1:${port}`, apiKey);
  await waitUntilServing(server, api.authorization);
  return { server, api, base: `http://127.0.0.1:${port}` };
}

async function timed(target, path) {
  const started = performance.now();
  const res = await fetch(`${target.base}${path}`, { headers: { authorization: target.api.authorization } });
  const body = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

let first = await serve();
try {
  say(`Data integrity over Sandbox books and bank of ${invoices.toLocaleString('en')} invoices, on ${store.description}`);
  const { api } = first;
  const company = await api.post('/companies', { name: 'Data integrity bench' });
  await api.setFirstLinkTypes(company.id, INPUTS);
  const syncStarted = performance.now();
  const connections = {};
  for (const platformKey of ['mqjo', 'bsbx']) {
    const connection = await api.post(`/companies/${company.id}/connections`, { platformKey });
    connections[platformKey] = connection.id;
    await api.put(`/companies/${company.id}/connections/${connection.id}/authorization`, { invoices: String(invoices) });
  }
  await api.waitForComplete(company.id, INPUTS);
  const count = async (connection, type) =>
    (await api.get(`/companies/${company.id}/connections/${connection}/data/${type}?pageSize=1`)).totalResults;
  const accounting = await count(connections.mqjo, 'accountTransactions');
  const banking = await count(connections.bsbx, 'banking-transactions');
  say(
    `Synced in ${((performance.now() - syncStarted) / 1000).toFixed(1)} s: ${accounting.toLocaleString('en')} account transactions, ${banking.toLocaleString('en')} bank lines`,
  );
  await first.server.stop();
  first = undefined;

  // A process with nothing in memory: its first answer reads both sides and matches them.
  const fresh = await serve();
  try {
    const path = (part, query = '') => `/data/companies/${company.id}/assess/dataTypes/accountTransactions/dataIntegrity/${part}${query}`;
    const before = readRss(fresh.server.pid);
    const summaries = await timed(fresh, path('summaries'));
    const after = readRss(fresh.server.pid);
    const { byCount } = summaries.body.summaries[0];
    say(
      `Read and matched ${accounting.toLocaleString('en')} × ${banking.toLocaleString('en')} in ${(summaries.ms / 1000).toFixed(2)} s: ` +
        `${byCount.matched.toLocaleString('en')} matched (${byCount.matchPercentage.toFixed(2)}% by count); target < 30 s: ${summaries.ms < 30_000 ? 'met' : 'NOT met'}`,
    );
    say(`Server RSS ${Math.round(before / 2 ** 20)} MiB before, ${Math.round(after / 2 ** 20)} MiB after`);
    const details = await timed(fresh, path('details', '?page=50&pageSize=2000'));
    const status = await timed(fresh, path('status'));
    say(`Then a page of 2,000 details: ${details.ms.toFixed(0)} ms; the status: ${status.ms.toFixed(0)} ms`);
  } finally {
    await fresh.server.stop();
  }
} finally {
  if (first) await first.server.stop();
  if (process.env.BENCH_KEEP_STORE === '1') say(`Store kept: ${store.databaseUrl}`);
  else await store.destroy();
}
