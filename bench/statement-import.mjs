// `npm run bench:statements` (also part of `npm run bench`): the largest statement file the upload accepts (10 MB),
// generated in each format (bench/lib/statement-files.mjs), uploaded to a Bank statement files connection of the
// server (`node dist/main.js`, on DATABASE_URL or a fresh SQLite file), and timed until every sync the upload
// queued is complete: transactions per second, and how much the server's RSS grew above what it was before the
// upload. Targets (issue 14): ≥ 20,000 transactions/s, ≤ 100 MB of growth. It reports and never asserts.
import { loadKnobs } from './lib/config.mjs';
import { createStore } from './lib/store.mjs';
import { createClient, freePort, readRss, sampleRss, startServer, waitUntilServing } from './lib/server.mjs';
import { CSV_MAPPING, FORMATS } from './lib/statement-files.mjs';
import fs from 'node:fs';

/** Anonymous and file-backed resident memory of a process (bytes): RSS is both. */
function rssParts(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}

const say = (line = '') => process.stdout.write(`${line}\n`);
const MAX_BYTES = 10 * 1024 * 1024;
const knobs = loadKnobs();
const store = await createStore(knobs);
const port = await freePort();
const { apiKey } = await createClient(store.databaseUrl, 'Statement bench');
const auth = `Basic ${Buffer.from(apiKey).toString('base64')}`;
const server = startServer({
  databaseUrl: store.databaseUrl,
  port,
  env: {
    BODY_LIMIT: String(5 * 1024 * 1024),
    ...(process.env.JOB_CONCURRENCY ? { JOB_CONCURRENCY: process.env.JOB_CONCURRENCY } : {}),
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  },
});
const base = `http://127.0.0.1:${port}`;

async function call(method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function settled(companyId) {
  for (;;) {
    const status = await call('GET', `/companies/${companyId}/dataStatus`);
    const states = Object.values(status).map((s) => s.currentStatus);
    if (states.length === 4 && !states.some((s) => s === 'Queued' || s === 'Fetching')) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const rows = [];
try {
  await waitUntilServing(server, auth);
  say(`Statement import: the largest file the upload accepts (${MAX_BYTES / 2 ** 20} MiB), per format, on ${store.description}`);
  // A small upload first: the server's one-time costs (its sync threads starting, code loading) are not an import's.
  {
    const company = await call('POST', '/companies', { name: 'Bench warm-up' });
    const connection = await call('POST', `/companies/${company.id}/connections`, { platformKey: 'fstm' });
    for (const [format, generate] of Object.entries(FORMATS)) {
      const form = new FormData();
      form.append('file', new Blob([generate(64 * 1024).text]), `warm-up.${format === 'CSV' ? 'csv' : 'txt'}`);
      if (format === 'CSV') form.append('mapping', CSV_MAPPING);
      const res = await fetch(`${base}/companies/${company.id}/connections/${connection.id}/files`, {
        method: 'POST',
        headers: { authorization: auth },
        body: form,
      });
      if (res.status !== 200) throw new Error(`warm-up ${format}: ${res.status} ${await res.text()}`);
      await settled(company.id);
    }
  }
  // BENCH_STATEMENT_FORMATS: a comma-separated subset, in that order (default: all).
  const chosen = process.env.BENCH_STATEMENT_FORMATS ? process.env.BENCH_STATEMENT_FORMATS.split(',') : Object.keys(FORMATS);
  for (const format of chosen) {
    const generate = FORMATS[format];
    if (!generate) throw new Error(`BENCH_STATEMENT_FORMATS: no format ${format} (${Object.keys(FORMATS).join(', ')})`);
    const { text, transactions } = generate(MAX_BYTES);
    const bytes = Buffer.from(text, 'utf8');
    const company = await call('POST', '/companies', { name: `Bench ${format}` });
    const connection = await call('POST', `/companies/${company.id}/connections`, { platformKey: 'fstm' });
    // Let the server settle, then measure from its RSS now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = readRss(server.pid);
    const sampler = sampleRss(server.pid);
    const partsBefore = rssParts(server.pid);
    let peakParts = partsBefore;
    const partsTimer = setInterval(() => {
      const now = rssParts(server.pid);
      if (now.anon + now.file > peakParts.anon + peakParts.file) peakParts = now;
    }, 100);
    const form = new FormData();
    form.append(
      'file',
      new Blob([bytes]),
      `bench.${format === 'CSV' ? 'csv' : format === 'OFX' ? 'ofx' : format === 'MT940' ? 'sta' : 'xml'}`,
    );
    if (format === 'CSV') form.append('mapping', CSV_MAPPING);
    const started = performance.now();
    const res = await fetch(`${base}/companies/${company.id}/connections/${connection.id}/files`, {
      method: 'POST',
      headers: { authorization: auth },
      body: form,
    });
    const answer = await res.json();
    if (res.status !== 200) throw new Error(`${format}: the upload answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    const accepted = performance.now() - started;
    const atAnswer = { rss: readRss(server.pid), peak: sampler.peek ? sampler.peek() : 0 };
    const status = await settled(company.id);
    const seconds = (performance.now() - started) / 1000;
    const peak = sampler.stop();
    clearInterval(partsTimer);
    const counted = answer.files[0].statements.reduce((n, s) => n + s.transactions, 0);
    const failed = Object.entries(status)
      .filter(([, s]) => s.currentStatus !== 'Complete')
      .map(([t, s]) => `${t} ${s.currentStatus}`);
    const row = {
      format,
      bytes: bytes.length,
      transactions: counted,
      generated: transactions,
      seconds: Math.round(seconds * 100) / 100,
      acceptedSeconds: Math.round(accepted / 10) / 100,
      perSecond: Math.round(counted / seconds),
      rssGrowthMiB: Math.round((peak - before) / 2 ** 20),
    };
    rows.push(row);
    say(
      `  ${format.padEnd(8)} ${(bytes.length / 2 ** 20).toFixed(2)} MiB, ${counted.toLocaleString('en')} transactions: upload answered in ${row.acceptedSeconds} s, ` +
        `all four data types synced in ${row.seconds} s = ${row.perSecond.toLocaleString('en')} transactions/s (target ≥ 20,000); ` +
        `RSS ${Math.round(before / 2 ** 20)} → peak ${Math.round(peak / 2 ** 20)} MiB, growth ${row.rssGrowthMiB} MiB (target ≤ 100) [when the upload answered: RSS ${Math.round(atAnswer.rss / 2 ** 20)} MiB] [anonymous ${Math.round(partsBefore.anon / 2 ** 20)} → ${Math.round(peakParts.anon / 2 ** 20)}, file-backed ${Math.round(partsBefore.file / 2 ** 20)} → ${Math.round(peakParts.file / 2 ** 20)} MiB]${failed.length ? `; NOT COMPLETE: ${failed.join(', ')}` : ''}`,
    );
    if (process.env.BENCH_VERBOSE) {
      // Each data type's pull operation: when it was queued and completed, from the upload's start.
      const history = await call('GET', `/companies/${company.id}/data/history?pageSize=100`);
      const origin = Date.parse(history.results.map((op) => op.requested).sort()[0]);
      for (const op of history.results)
        say(
          `    ${op.dataType.padEnd(30)} requested +${Date.parse(op.requested) - origin} ms, completed +${Date.parse(op.completed) - origin} ms`,
        );
    }
    if (counted !== transactions) say(`    the file holds ${transactions} transactions but the upload read ${counted}`);
  }
} finally {
  await server.stop();
  await store.destroy();
}
say(JSON.stringify({ statementImport: rows }));
