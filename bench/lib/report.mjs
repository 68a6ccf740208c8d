// Writing a run's results: bench/results/<store>-latest.json and the store's section of docs/benchmarks.md.
import fs from 'node:fs';
import path from 'node:path';
import { DOCS_FILE, RESULTS_DIR } from './config.mjs';
import { ingestTargets, startTarget } from './targets.mjs';

const n = (value) => Math.round(value).toLocaleString('en');
const mib = (bytes) => `${Math.round(bytes / 2 ** 20)} MiB`;
const met = (target) => (target.met ? 'met' : '**not met**');

export function writeResultsJson(results) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${results.store.kind}-latest.json`);
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}

/** The command that reproduces a run with these knobs. */
function commandOf(results) {
  const { knobs } = results;
  const defaults = { invoices: 1_000_000, durationSeconds: 10, connections: 10, companies: 10_000 };
  const env = [];
  if (knobs.invoices !== defaults.invoices) env.push(`BENCH_INVOICES=${knobs.invoices}`);
  if (knobs.companies !== defaults.companies) env.push(`BENCH_COMPANIES=${knobs.companies}`);
  if (knobs.durationSeconds !== defaults.durationSeconds) env.push(`BENCH_DURATION=${knobs.durationSeconds}`);
  if (knobs.connections !== defaults.connections) env.push(`BENCH_CONNECTIONS=${knobs.connections}`);
  if (results.store.kind === 'postgres') env.push('DATABASE_URL=postgres://…');
  return [...env, 'npm run bench'].join(' ');
}

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}

/** The markdown section of one store (without its markers). */
export function renderSection(results) {
  const { machine, ingest, ceiling, scenarios, start } = results;
  const lines = [];
  lines.push(`### ${results.store.kind === 'sqlite' ? 'SQLite' : 'Postgres'}: latest run`);
  lines.push('');
  lines.push(`Command: \`${commandOf(results)}\` (${results.date.slice(0, 10)}).`);
  lines.push('');
  lines.push(
    `Machine: ${machine.cores} cores (${machine.cpuModel}), ${mib(machine.totalMemoryBytes)} memory, ${machine.platform}, Node ${machine.node}; ` +
      `store: ${results.store.description}; ${results.knobs.invoices.toLocaleString('en')} invoices, ` +
      `${results.knobs.connections} connections, ${results.knobs.durationSeconds} s per scenario.`,
  );
  lines.push('');
  lines.push(row(['Scenario', 'req/s', 'p50 ms', 'p99 ms', 'MB/s', 'Ratio to ceiling', 'Target', 'Met?']));
  lines.push(row(['---', '---:', '---:', '---:', '---:', '---:', '---', '---']));
  lines.push(
    row([
      `Ceiling: node:http, fixed ${n(ceiling.bodyBytes)}-byte body`,
      n(ceiling.requestsPerSecond),
      ceiling.latencyP50Ms,
      ceiling.latencyP99Ms,
      ceiling.megabytesPerSecond,
      '1.00',
      '',
      '',
    ]),
  );
  for (const s of scenarios) {
    const flags = [];
    if (s.non2xx) flags.push(`⚠ ${s.non2xx} non-2xx`);
    if (s.errors) flags.push(`⚠ ${s.errors} errors`);
    if (s.requests === 0)
      flags.push(
        `⚠ no request completed in ${s.seconds} s${s.warmUpMs === undefined ? '' : ` (one alone took ${Math.round(s.warmUpMs)} ms)`}`,
      );
    const name = [s.name, ...flags].join(' ');
    lines.push(
      row([
        name,
        n(s.requestsPerSecond),
        s.latencyP50Ms ?? '—',
        s.latencyP99Ms ?? '—',
        s.megabytesPerSecond,
        s.ratioToCeiling.toFixed(2),
        s.target?.text ?? '',
        s.target ? `${s.target.met ? 'yes' : '**no**'} (${s.target.detail})` : '',
      ]),
    );
  }
  lines.push('');
  const it = ingestTargets(ingest.invoices);
  lines.push(
    `Ingest, ${n(ingest.invoices.records)}-invoice sync: ${ingest.invoices.wallSeconds} s, ` +
      `${n(ingest.invoices.recordsPerSecond)} records/s (target ${it.recordsPerSecond.text}: ${met(it.recordsPerSecond)}), ` +
      `peak RSS ${mib(ingest.invoices.peakRssBytes)} (target ${it.peakRss.text}: ${met(it.peakRss)}).`,
  );
  lines.push('');
  const counts = Object.entries(ingest.otherTypes.byType)
    .filter(([, t]) => t.records !== undefined)
    .map(([type, t]) => `${type} ${n(t.records)}`)
    .join(', ');
  const failed = Object.entries(ingest.otherTypes.byType).filter(([, t]) => t.status !== 'Complete');
  lines.push(
    `The other data types (queued together by \`POST /companies/{id}/data/all\`): ${ingest.otherTypes.wallSeconds} s; ` +
      `records: ${counts}.${failed.length ? ` Not complete: ${failed.map(([type, t]) => `${type} ${t.status}`).join(', ')}.` : ''}`,
  );
  lines.push('');
  lines.push(
    `Second invoices sync while reads run: ${results.secondSync.wallSeconds} s (${results.secondSync.status}), ` +
      `${n(results.secondSync.recordsPerSecond)} records/s, peak RSS ${mib(results.secondSync.peakRssBytes)}.`,
  );
  lines.push('');
  const st = startTarget(start.ms);
  lines.push(`Start to first answered request, on this store: ${Math.round(start.ms)} ms (target ${st.text}: ${met(st)}).`);
  lines.push('');
  lines.push(`Store size after the run: ${mib(results.storeBytes)}. Figures in full: \`bench/results/${results.store.kind}-latest.json\`.`);
  return lines.join('\n');
}

/** Replaces the store's section of docs/benchmarks.md between its markers (adds the markers if missing). */
export function writeDocsSection(results) {
  return replaceDocsSection(results.store.kind, renderSection(results));
}

/** Replaces (or appends) the section between `<!-- bench:<name>:start -->` and its end marker. */
export function replaceDocsSection(name, markdown) {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = `${start}\n${markdown}\n${end}`;
  let text = fs.readFileSync(DOCS_FILE, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from !== -1 && to > from) text = text.slice(0, from) + section + text.slice(to + end.length);
  else text = `${text.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(DOCS_FILE, text);
  return DOCS_FILE;
}

/**
 * The stores of one `--stores` run side by side, with issue 15's targets: Postgres page 1 at least half of SQLite's
 * with p99 ≤ 30 ms, its last pages at least 0.8 of its page 1, SQLite page 1 at least 0.3 of the ceiling, each
 * store's quiet re-sync at least 0.8 of its bare insert loop with peak RSS ≤ 300 MiB, Postgres /companies last page
 * at least half of its page 1.
 */
export function renderSideBySide(runs, command) {
  const by = Object.fromEntries(runs.map((r) => [r.store.kind, r]));
  const figure = (run, key) => run?.scenarios.find((s) => s.key === key);
  const lines = [];
  lines.push('### Side by side: latest run');
  lines.push('');
  const first = runs[0];
  lines.push(
    `Command: \`${command}\` (${first.date.slice(0, 10)}); ${first.knobs.invoices.toLocaleString('en')} invoices, ` +
      `${first.knobs.connections} connections, ${first.knobs.durationSeconds} s per scenario, ${first.machine.cores} cores, ` +
      `Node ${first.machine.node}; the stores one after the other, nothing else running.`,
  );
  lines.push('');
  lines.push(row(['Scenario', ...runs.map((r) => `${r.store.kind === 'sqlite' ? 'SQLite' : 'Postgres'} req/s (p99 ms)`)]));
  lines.push(row(['---', ...runs.map(() => '---:')]));
  lines.push(row(['Ceiling (node:http, fixed body)', ...runs.map((r) => `${n(r.ceiling.requestsPerSecond)} (${r.ceiling.latencyP99Ms})`)]));
  for (const s of first.scenarios) {
    lines.push(
      row([
        s.name.replace(/\(\d[\d,]*\)/, '').trim(),
        ...runs.map((r) => {
          const f = figure(r, s.key);
          return f ? `${n(f.requestsPerSecond)} (${f.latencyP99Ms ?? '—'})` : '—';
        }),
      ]),
    );
  }
  lines.push(row(['Re-sync, nothing else running: records/s', ...runs.map((r) => n(r.quietResync.recordsPerSecond))]));
  lines.push(row(['Bare insert loop of the same documents: records/s', ...runs.map((r) => n(r.bareInsert.recordsPerSecond))]));
  lines.push(row(['Re-sync peak RSS', ...runs.map((r) => mib(r.quietResync.peakRssBytes))]));
  // Every record the company holds: the invoices and the other data types' listed records.
  const recordsOf = (r) =>
    r.ingest.invoices.records + Object.values(r.ingest.otherTypes.byType).reduce((sum, t) => sum + (t.records ?? 0), 0);
  lines.push(row(['Store size', ...runs.map((r) => mib(r.storeBytes))]));
  lines.push(
    row(['Store size per record (whole store / every record synced)', ...runs.map((r) => `${n(r.storeBytes / recordsOf(r))} bytes`)]),
  );
  lines.push('');
  const targets = [];
  const check = (text, value, threshold, detail) => targets.push(`- ${text}: ${detail} — ${value >= threshold ? 'met' : '**not met**'}.`);
  const sqlite = by.sqlite;
  const postgres = by.postgres;
  if (sqlite && postgres) {
    const ratio = figure(postgres, 'list-page1').requestsPerSecond / figure(sqlite, 'list-page1').requestsPerSecond;
    check('Postgres invoices page 1 ≥ 0.5 of SQLite’s', ratio, 0.5, `${ratio.toFixed(2)}`);
    const p99 = figure(postgres, 'list-page1').latencyP99Ms ?? Infinity;
    check('Postgres invoices page 1 p99 ≤ 30 ms', -p99, -30, `${p99} ms`);
  }
  if (postgres) {
    for (const key of ['list-last', 'paid-last']) {
      const r = figure(postgres, key).requestsPerSecond / figure(postgres, 'list-page1').requestsPerSecond;
      check(`Postgres ${key === 'list-last' ? 'last page' : 'status=Paid last page'} ≥ 0.8 of its page 1`, r, 0.8, r.toFixed(2));
    }
    const c = figure(postgres, 'companies-last').requestsPerSecond / figure(postgres, 'companies-page1').requestsPerSecond;
    check('Postgres /companies last page ≥ 0.5 of its page 1', c, 0.5, c.toFixed(2));
  }
  if (sqlite) {
    const r = figure(sqlite, 'list-page1').requestsPerSecond / sqlite.ceiling.requestsPerSecond;
    check('SQLite page 1 ≥ 0.3 of the ceiling', r, 0.3, r.toFixed(2));
  }
  for (const run of runs) {
    const name = run.store.kind === 'sqlite' ? 'SQLite' : 'Postgres';
    const r = run.quietResync.recordsPerSecond / run.bareInsert.recordsPerSecond;
    check(
      `${name} re-sync ≥ 0.8 of the bare insert loop`,
      r,
      0.8,
      `${n(run.quietResync.recordsPerSecond)} / ${n(run.bareInsert.recordsPerSecond)} = ${r.toFixed(2)}`,
    );
    check(`${name} re-sync peak RSS ≤ 300 MiB`, -run.quietResync.peakRssBytes, -300 * 2 ** 20, mib(run.quietResync.peakRssBytes));
  }
  lines.push('Targets (issue 15):');
  lines.push('');
  lines.push(...targets);
  return lines.join('\n');
}
