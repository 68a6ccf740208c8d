// `npm run bench:emulator`: issue 32's 30-day scenario, timed. A standard-plan client whose sync settings fetch only
// `invoices`, hourly, puts itself on a test clock, links a small accounting Sandbox and subscribes a webhook receiver to
// `read.completed`; then `POST /emulator/clocks/{id}/advance {"by": "P30D"}` and the time until the clock is `ready`
// (720 syncs and 720 events later). On a fresh store: SQLite, or a new schema on DATABASE_URL; BENCH_WORKERS=N runs
// the API in one process and N worker processes beside it (`serve --role`); BENCH_BY sets the advance (P30D). It reports and never asserts.
import http from 'node:http';
import { loadKnobs } from './lib/config.mjs';
import { createStore } from './lib/store.mjs';
import { createClient, freePort, startServer, waitUntilServing } from './lib/server.mjs';
import { createApi } from './lib/api.mjs';
import { DATA_TYPES } from '../dist/codat-model/data-types.js';

const say = (line = '') => process.stdout.write(`${line}\n`);
const knobs = loadKnobs();
const workers = Number(process.env.BENCH_WORKERS ?? 0);
const store = await createStore(knobs);
const { clientId, apiKey } = await createClient(store.databaseUrl, 'Emulator bench');
const env = { EMULATOR: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' };

let received = 0;
const receiver = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(200).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));

const port = await freePort();
const processes = [startServer({ databaseUrl: store.databaseUrl, port, role: workers > 0 ? 'api' : undefined, env })];
const api = createApi(`http://127.0.0.1:${port}`, apiKey);
try {
  await waitUntilServing(processes[0], api.authorization);
  for (let i = 0; i < workers; i++) processes.push(startServer({ databaseUrl: store.databaseUrl, role: 'worker', env }));
  say(`The 30-day scenario on ${store.description}${workers > 0 ? `, the API and ${workers} worker processes` : ', one process'}`);

  await api.post('/webhooks', { url: `http://127.0.0.1:${receiver.address().port}/hooks`, eventTypes: ['read.completed'] });
  await api.post('/profile/syncSettings', {
    clientId,
    overridesDefaults: true,
    settings: DATA_TYPES.map((dataType, syncOrder) => ({
      dataType,
      fetchOnFirstLink: dataType === 'invoices',
      syncSchedule: dataType === 'invoices' ? 1 : 0,
      syncOrder,
    })),
  });
  const clock = await api.post('/emulator/clocks', { frozenTime: '2027-03-01T00:00:00Z' });
  await api.put('/emulator/client/clock', { clockId: clock.id });
  const company = await api.post('/companies', { name: 'Emulator bench' });
  const connection = await api.post(`/companies/${company.id}/connections`, { platformKey: 'mqjo' });
  await api.put(`/companies/${company.id}/connections/${connection.id}/authorization`, { size: 'small' });
  await api.waitForComplete(company.id, ['invoices']);
  while (received < 1) await new Promise((resolve) => setTimeout(resolve, 20));

  const started = performance.now();
  await api.post(`/emulator/clocks/${clock.id}/advance`, { by: process.env.BENCH_BY ?? 'P30D' });
  for (;;) {
    const state = await api.get(`/emulator/clocks/${clock.id}`);
    if (state.status === 'ready') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const pulls = await api.get(`/companies/${company.id}/data/history?pageSize=1&query=${encodeURIComponent('dataType=invoices')}`);
  const { lastSync } = await api.get(`/companies/${company.id}`);
  say(
    `advance P30D: ${seconds.toFixed(1)} s; ${pulls.totalResults - 1} scheduled invoices syncs, ${received - 1} read.completed delivered, lastSync ${lastSync}`,
  );
} finally {
  await Promise.all(processes.map((p) => p.stop()));
  receiver.close();
  await store.destroy();
}
