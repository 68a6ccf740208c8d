// `node bench/kept-read.mjs <store>`: how fast a report's kept tuples (src/records/record-fields.ts, KEPT_FIELDS)
// come out of a store, read two ways over the two largest versions: a row per record, each tuple parsed on its own
// (`rows`), and a batch's tuples joined into one text by the store and parsed at once (`joined`). <store> is a kept
// SQLite file or a Postgres URL with its schema (`?options=-csearch_path%3D<schema>`, as `BENCH_KEEP_STORE=1 npm run
// bench:aged` prints it). Three rounds each; it reports and asserts nothing. Batches of 10,000, as the reader's.
import Database from 'better-sqlite3';
import pg from 'pg';

const target = process.argv[2];
if (!target) {
  console.error('usage: node bench/kept-read.mjs <sqlite file | postgres URL>');
  process.exit(2);
}
const BATCH = 10_000;
const postgres = /^postgres(ql)?:/.test(target);

async function sqliteWays() {
  const db = new Database(target, { readonly: true });
  const versions = db.prepare('SELECT version, data_type, records FROM record_versions ORDER BY records DESC LIMIT 2').all();
  const ROW = 'SELECT r.record_id, r.f_kept FROM record_index r WHERE r.version = ? AND r.is_deleted = 0';
  const first = db.prepare(`${ROW} ORDER BY r.record_id LIMIT ?`).raw(true);
  const next = db.prepare(`${ROW} AND r.record_id > ? ORDER BY r.record_id LIMIT ?`).raw(true);
  const IDS = "SELECT r.record_id AS id, coalesce(r.f_kept, 'null') AS k FROM record_index r WHERE r.version = ? AND r.is_deleted = 0";
  const joined = (rows) => `SELECT group_concat(k, ','), max(id), count(*) FROM (${rows})`;
  const firstJ = db.prepare(joined(`${IDS} ORDER BY r.record_id LIMIT ?`)).raw(true);
  const nextJ = db.prepare(joined(`${IDS} AND r.record_id > ? ORDER BY r.record_id LIMIT ?`)).raw(true);
  return {
    versions,
    async rows(version, visit) {
      for (let after = null; ;) {
        const rows = after === null ? first.all(version, BATCH) : next.all(version, after, BATCH);
        for (const [, kept] of rows) visit(JSON.parse(kept));
        if (rows.length < BATCH) return;
        after = rows[rows.length - 1][0];
      }
    },
    async joined(version, visit) {
      for (let after = null; ;) {
        const [text, last, count] = after === null ? firstJ.get(version, BATCH) : nextJ.get(version, after, BATCH);
        if (text) for (const tuple of JSON.parse(`[${text}]`)) visit(tuple);
        if (count < BATCH) return;
        after = last;
      }
    },
    close: () => db.close(),
  };
}

async function postgresWays() {
  const pool = new pg.Pool({ connectionString: target, max: 2 });
  const { rows: versions } = await pool.query(
    'SELECT v.version, v.data_type, v.records FROM record_versions v ORDER BY v.records DESC NULLS LAST LIMIT 2',
  );
  // As the reader: bounded position ranges, the next asked for while this one is decoded.
  const ranged = async (version, records, query, each) => {
    const page = (from) => pool.query(query, [version, from, from + BATCH]);
    let pending = records > 0 ? page(0) : undefined;
    for (let from = 0; pending; from += BATCH) {
      const { rows } = await pending;
      pending = from + BATCH < records ? page(from + BATCH) : undefined;
      each(rows);
    }
  };
  return {
    versions,
    rows: (version, visit, records) =>
      ranged(
        version,
        records,
        'SELECT r.record_id, r.f_kept FROM record_index r WHERE r.version = $1 AND r.position >= $2 AND r.position < $3 AND r.is_deleted = 0 ORDER BY r.position',
        (rows) => {
          for (const row of rows) visit(JSON.parse(row.f_kept));
        },
      ),
    joined: (version, visit, records) =>
      ranged(
        version,
        records,
        "SELECT string_agg(coalesce(r.f_kept, 'null'), ',' ORDER BY r.position) AS kept FROM record_index r WHERE r.version = $1 AND r.position >= $2 AND r.position < $3 AND r.is_deleted = 0",
        (rows) => {
          if (rows[0]?.kept) for (const tuple of JSON.parse(`[${rows[0].kept}]`)) visit(tuple);
        },
      ),
    close: () => pool.end(),
  };
}

const ways = postgres ? await postgresWays() : await sqliteWays();
console.log(`Kept tuples read from ${postgres ? 'Postgres' : 'SQLite'}, batches of ${BATCH}`);
for (let round = 1; round <= 3; round++) {
  for (const { version, data_type: dataType, records } of ways.versions) {
    for (const way of ['rows', 'joined']) {
      let count = 0;
      const started = performance.now();
      await ways[way](Number(version), () => count++, Number(records));
      console.log(
        `round ${round}  ${dataType.padEnd(10)} ${way.padEnd(7)} ${count} tuples  ${(performance.now() - started).toFixed(0)} ms`,
      );
    }
  }
}
await ways.close();
