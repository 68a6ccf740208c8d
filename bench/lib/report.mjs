// Writing a run's results: bench/results/<store>-latest.json and the store's section of docs/benchmarks.md.
import fs from 'node:fs';
import path from 'node:path';
import { DOCS_FILE, RESULTS_DIR } from './config.mjs';
import { STORE_TARGETS, ingestTargets, startTarget } from './targets.mjs';

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
function commandOf(results, stores) {
  const { knobs } = results;
  const defaults = { invoices: 1_000_000, durationSeconds: 10, connections: 10, companies: 10_000 };
  const env = [];
  if (knobs.invoices !== defaults.invoices) env.push(`BENCH_INVOICES=${knobs.invoices}`);
  if (knobs.companies !== defaults.companies) env.push(`BENCH_COMPANIES=${knobs.companies}`);
  if (knobs.durationSeconds !== defaults.durationSeconds) env.push(`BENCH_DURATION=${knobs.durationSeconds}`);
  if (knobs.connections !== defaults.connections) env.push(`BENCH_CONNECTIONS=${knobs.connections}`);
  // A side-by-side run reaches Postgres at DATABASE_URL or the local default: the command is the same either way.
  if (results.store.kind === 'postgres' && !stores) env.push('DATABASE_URL=postgres://…');
  return [...env, stores ? `npm run bench -- --stores ${stores.join(',')}` : 'npm run bench'].join(' ');
}

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}

/** The markdown section of one store (without its markers). */
export function renderSection(results, stores) {
  const { machine, ingest, ceiling, scenarios, start } = results;
  const lines = [];
  lines.push(`### ${results.store.kind === 'sqlite' ? 'SQLite' : 'Postgres'}: latest run`);
  lines.push('');
  lines.push(`Command: \`${commandOf(results, stores)}\` (${results.date.slice(0, 10)}).`);
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
export function writeDocsSection(results, stores) {
  return replaceDocsSection(results.store.kind, renderSection(results, stores));
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
 * The stores of one `--stores` run side by side, with issue 15's targets (`STORE_TARGETS`). A figure a run did not
 * measure (a scenario in which no request completed) leaves its target "not measured", never met.
 */
export function renderSideBySide(runs, stores) {
  const t = STORE_TARGETS;
  const by = Object.fromEntries(runs.map((r) => [r.store.kind, r]));
  const measured = (run, key) => {
    const f = run?.scenarios.find((s) => s.key === key);
    return f && f.requests > 0 ? f : undefined;
  };
  const name = (run) => (run.store.kind === 'sqlite' ? 'SQLite' : 'Postgres');
  const lines = [];
  lines.push('### Side by side: latest run');
  lines.push('');
  const first = runs[0];
  lines.push(
    `Command: \`${commandOf(first, stores)}\` (${first.date.slice(0, 10)}); ${first.knobs.invoices.toLocaleString('en')} invoices, ` +
      `${first.knobs.connections} connections, ${first.knobs.durationSeconds} s per scenario, ${first.machine.cores} cores, ` +
      `Node ${first.machine.node}; the stores one after the other, nothing else running.`,
  );
  lines.push('');
  lines.push(row(['Scenario', ...runs.map((r) => `${name(r)} req/s (p99 ms)`)]));
  lines.push(row(['---', ...runs.map(() => '---:')]));
  lines.push(row(['Ceiling (node:http, fixed body)', ...runs.map((r) => `${n(r.ceiling.requestsPerSecond)} (${r.ceiling.latencyP99Ms})`)]));
  for (const s of first.scenarios) {
    // Each store's run names its own pages and counts: the row keeps the scenario, not one store's numbers.
    const label = s.name.replace(/\s*\([^)]*\)/g, '');
    lines.push(
      row([
        label,
        ...runs.map((r) => {
          const f = measured(r, s.key);
          return f ? `${n(f.requestsPerSecond)} (${f.latencyP99Ms ?? '—'})` : '—';
        }),
      ]),
    );
  }
  lines.push(row(['Re-sync, nothing else running: records/s', ...runs.map((r) => n(r.quietResync.recordsPerSecond))]));
  lines.push(row(['Bare insert loop of the same documents: records/s', ...runs.map((r) => n(r.bareInsert.recordsPerSecond))]));
  lines.push(row(['Re-sync peak RSS', ...runs.map((r) => mib(r.quietResync.peakRssBytes))]));
  // The records listed by the run (invoices and the other types' lists); the store also holds every version still
  // kept and the companies of the /companies scenarios.
  const listed = (r) => r.ingest.invoices.records + Object.values(r.ingest.otherTypes.byType).reduce((sum, x) => sum + (x.records ?? 0), 0);
  lines.push(row(['Store size', ...runs.map((r) => mib(r.storeBytes))]));
  lines.push(row(['Store bytes / records listed', ...runs.map((r) => `${n(r.storeBytes / listed(r))} bytes`)]));
  lines.push('');
  const targets = [];
  /** A target's line: met, not met, or not measured (`met` undefined). */
  const check = (text, met, detail) =>
    targets.push(`- ${text}: ${met === undefined ? 'not measured' : `${detail} — ${met ? 'met' : '**not met**'}`}.`);
  const { sqlite, postgres } = by;
  const pgPage1 = measured(postgres, 'list-page1');
  if (sqlite && postgres) {
    const sqlitePage1 = measured(sqlite, 'list-page1');
    const ratio = pgPage1 && sqlitePage1 ? pgPage1.requestsPerSecond / sqlitePage1.requestsPerSecond : undefined;
    check(
      `Postgres invoices page 1 ≥ ${t.postgresPage1ToSqlite} of SQLite’s`,
      ratio && ratio >= t.postgresPage1ToSqlite,
      ratio?.toFixed(2),
    );
    const p99 = pgPage1?.latencyP99Ms;
    check(`Postgres invoices page 1 p99 ≤ ${t.postgresPage1P99Ms} ms`, p99 == null ? undefined : p99 <= t.postgresPage1P99Ms, `${p99} ms`);
  }
  if (postgres) {
    for (const [key, what] of [
      ['list-last', 'last page'],
      ['paid-last', 'status=Paid last page'],
    ]) {
      const r = pgPage1 && measured(postgres, key)?.ratioToPage1;
      check(
        `Postgres ${what} ≥ ${t.postgresLastPagesToPage1} of its page 1`,
        r == null ? undefined : r >= t.postgresLastPagesToPage1,
        r?.toFixed(2),
      );
    }
    const page1 = measured(postgres, 'companies-page1');
    const last = measured(postgres, 'companies-last');
    const c = page1 && last ? last.requestsPerSecond / page1.requestsPerSecond : undefined;
    check(
      `Postgres /companies last page ≥ ${t.postgresCompaniesLastToPage1} of its page 1`,
      c && c >= t.postgresCompaniesLastToPage1,
      c?.toFixed(2),
    );
  }
  if (sqlite) {
    const r = measured(sqlite, 'list-page1')?.ratioToCeiling;
    check(
      `SQLite page 1 ≥ ${t.sqlitePage1CeilingRatio} of the ceiling`,
      r == null ? undefined : r >= t.sqlitePage1CeilingRatio,
      r?.toFixed(2),
    );
  }
  for (const run of runs) {
    const { quietResync: resync, bareInsert: bare } = run;
    const r = resync.recordsPerSecond / bare.recordsPerSecond;
    check(
      `${name(run)} re-sync ≥ ${t.resyncToBareLoop} of the bare insert loop`,
      r >= t.resyncToBareLoop,
      `${n(resync.recordsPerSecond)} / ${n(bare.recordsPerSecond)} = ${r.toFixed(2)}`,
    );
    check(
      `${name(run)} re-sync peak RSS ≤ ${t.resyncPeakRssMB} MiB`,
      resync.peakRssBytes <= t.resyncPeakRssMB * 2 ** 20,
      mib(resync.peakRssBytes),
    );
  }
  lines.push('Targets (issue 15):');
  lines.push('');
  lines.push(...targets);
  return lines.join('\n');
}
