// The baseline a sync's ingest is held against (issue 15): the same documents inserted by a bare loop on the same
// store, in one transaction, 1,000 rows per INSERT, into a table of (key, document). Reading the documents back
// (1,000 at a time, by position) is not timed; only the inserts are.
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

const BATCH = 1000;

/** Inserts the documents of the invoices version readers see; returns the records/s of the inserts alone. */
export async function bareInsertLoop(store) {
  return store.kind === 'sqlite' ? sqliteLoop(store.databaseUrl) : postgresLoop(store.databaseUrl);
}

const versionSql = "SELECT current_version AS v FROM data_sets WHERE data_type = 'invoices' AND current_version IS NOT NULL";
const pageSql = (p) =>
  `SELECT i.position AS position, d.doc AS doc FROM record_index i JOIN record_docs d ON d.key = i.doc_key
   WHERE i.version = ${p(1)} AND i.position > ${p(2)} ORDER BY i.position LIMIT ${BATCH}`;

function sqliteLoop(file) {
  const db = new BetterSqlite3(file);
  try {
    // As the server writes: write-ahead log, and no sync to disk on each commit (src/storage/database.ts).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const version = db.prepare(versionSql).get()?.v;
    if (version === undefined) throw new Error('no complete invoices version to copy');
    db.exec('DROP TABLE IF EXISTS bench_bare_docs; CREATE TABLE bench_bare_docs (key INTEGER PRIMARY KEY, doc TEXT NOT NULL)');
    const page = db.prepare(pageSql(() => '?'));
    const insertOf = new Map();
    let insertMs = 0;
    let records = 0;
    db.exec('BEGIN');
    for (let after = -1; ;) {
      const rows = page.all(version, after);
      if (rows.length === 0) break;
      let insert = insertOf.get(rows.length);
      if (!insert)
        insertOf.set(
          rows.length,
          (insert = db.prepare(`INSERT INTO bench_bare_docs (key, doc) VALUES ${rows.map(() => '(?, ?)').join(', ')}`)),
        );
      const params = rows.flatMap((r) => [r.position, r.doc]);
      const started = performance.now();
      insert.run(params);
      insertMs += performance.now() - started;
      records += rows.length;
      after = rows[rows.length - 1].position;
    }
    const started = performance.now();
    db.exec('COMMIT');
    insertMs += performance.now() - started;
    db.exec('DROP TABLE bench_bare_docs');
    return { records, seconds: insertMs / 1000, recordsPerSecond: records / (insertMs / 1000) };
  } finally {
    db.close();
  }
}

async function postgresLoop(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const version = (await client.query(versionSql)).rows[0]?.v;
    if (version === undefined) throw new Error('no complete invoices version to copy');
    await client.query('DROP TABLE IF EXISTS bench_bare_docs');
    // Shaped as record_docs, its column's compression included (lz4 where the server has it; migration 0010).
    await client.query('CREATE TABLE bench_bare_docs (LIKE record_docs INCLUDING ALL)');
    let insertMs = 0;
    let records = 0;
    await client.query('BEGIN');
    for (let after = -1; ;) {
      const { rows } = await client.query(
        pageSql((i) => `$${i}`),
        [version, after],
      );
      if (rows.length === 0) break;
      const values = rows.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(', ');
      const params = rows.flatMap((r) => [r.position, r.doc]);
      const started = performance.now();
      await client.query(`INSERT INTO bench_bare_docs (key, doc) VALUES ${values}`, params);
      insertMs += performance.now() - started;
      records += rows.length;
      after = Number(rows[rows.length - 1].position);
    }
    const started = performance.now();
    await client.query('COMMIT');
    insertMs += performance.now() - started;
    await client.query('DROP TABLE bench_bare_docs');
    return { records, seconds: insertMs / 1000, recordsPerSecond: records / (insertMs / 1000) };
  } finally {
    await client.end();
  }
}
