// `npm run bench:sync-modes` (also the last part of `npm run bench`): what delta syncs and records in any order
// cost, on the store DATABASE_URL names (a fresh SQLite file by default). A platform of the bench's own holds
// BENCH_SYNC_RECORDS invoices (default 1,000,000, about 600 bytes each) and is synced through the same code a sync
// job runs (`runVersionTask`), on this thread:
//   1. a first full sync, records in id order (streamed into place);
//   2. the same first sync, records in a random order (staged, then ordered);
//   3. a second full sync over the stored version, in id order (what a platform without a cursor costs each time);
//   4. a delta sync over it: 10 changes and 1 delete since the cursor.
// Reports seconds, records/s and peak RSS, and the ratios the connector issue sets (random ≤ 1.2 × sorted, delta ≤
// 10% of full, peak RSS ≤ 300 MiB). It reports and never asserts.
import { createStore } from './lib/store.mjs';
import { openStore } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { registerConnector } from '../src/connectors/registry.js';
import { declarePlatform } from '../src/connectors/platform-declaration.js';
import { platformConnector } from '../src/connectors/platform-connector.js';
import { accountingSandbox } from '../src/connectors/sandbox/accounting/index.js';
import { runVersionTask, type VersionResult } from '../src/syncs/version-task.js';
import type { DataTypeRead, ReadContext, RecordPage, SourceRecord } from '../src/connectors/connector.js';

const N = Number(process.env.BENCH_SYNC_RECORDS ?? 1_000_000);
const PAGE = 1000;
const postgresUrl = /^postgres(ql)?:/i.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL : undefined;
const say = (line = '') => process.stdout.write(`${line}\n`);

/** Invoice i as the platform holds it at `revision` (changed records carry a later revision). */
function invoice(i: number, revision = 0): SourceRecord {
  const id = `inv-${String(i).padStart(7, '0')}`;
  const day = 1 + (i % 28);
  const modified = `2026-0${1 + revision}-${String(day).padStart(2, '0')}T10:00:00Z`;
  const amount = ((i * 7919) % 100_000) / 100 + revision;
  const data = {
    id,
    invoiceNumber: `INV-${i}`,
    customerRef: { id: `cus-${i % 5000}`, companyName: `Customer ${i % 5000} Ltd` },
    issueDate: `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(day).padStart(2, '0')}T00:00:00`,
    dueDate: `2025-${String(1 + ((i + 1) % 12)).padStart(2, '0')}-${String(day).padStart(2, '0')}T00:00:00`,
    currency: 'GBP',
    currencyRate: 1,
    status: i % 3 ? 'Paid' : 'Submitted',
    subTotal: amount,
    totalTaxAmount: round(amount * 0.2),
    totalAmount: round(amount * 1.2),
    amountDue: i % 3 ? 0 : round(amount * 1.2),
    totalDiscount: 0,
    discountPercentage: 0,
    lineItems: [
      {
        description: `Consulting services, batch ${i % 97}`,
        unitAmount: amount,
        quantity: 1,
        subTotal: amount,
        taxAmount: round(amount * 0.2),
        totalAmount: round(amount * 1.2),
        accountRef: { id: '4000', name: 'Sales' },
      },
    ],
    note: 'Thank you for your business.',
    sourceModifiedDate: modified,
  };
  return { id, sourceModifiedDate: modified, data };
}
const round = (x: number) => Math.round(x * 100) / 100;

/** The bench platform's next read: in id order or in a random order (an affine permutation), or changes only. */
let plan: { kind: 'sorted' | 'random' | 'delta'; revision: number } = { kind: 'sorted', revision: 0 };

async function* fullPages(order: 'sorted' | 'random', revision: number): AsyncGenerator<RecordPage> {
  // a is coprime with N (a prime that does not divide it), so i -> (a*i + c) mod N visits every index once.
  const a = 2_654_435_761 % N || 1;
  let page: SourceRecord[] = [];
  for (let k = 0; k < N; k++) {
    const i = order === 'sorted' ? k : Number((BigInt(a) * BigInt(k) + 12_345n) % BigInt(N));
    page.push(invoice(i, revision));
    if (page.length === PAGE) {
      yield { records: page };
      page = [];
    }
  }
  if (page.length) yield { records: page };
}

async function* deltaPages(): AsyncGenerator<RecordPage> {
  const changed = Array.from({ length: 10 }, (_, k) => Math.floor(((k + 0.5) * N) / 10));
  yield { records: changed.map((i) => invoice(i, 1)), deleted: [invoice(Math.floor(N / 3)).id] };
}

const invoices = accountingSandbox.dataTypes.get('invoices')!;
const declaration = declarePlatform({
  key: 'bnch',
  name: 'Bench platform',
  sourceType: 'Accounting',
  brandColour: '#000000',
  authorization: { kind: 'none' },
  dataTypes: { invoices: { features: ['Get'] } },
});
registerConnector(
  platformConnector(declaration, {
    dataTypes: new Map([
      [
        'invoices',
        {
          dataType: 'invoices',
          typeName: invoices.typeName,
          schema: invoices.schema,
          read(_ctx: ReadContext): DataTypeRead {
            if (plan.kind === 'delta') return { mode: 'delta', ordered: false, pages: deltaPages(), nextCursor: () => 'after-delta' };
            return {
              mode: 'full',
              ordered: plan.kind === 'sorted',
              pages: fullPages(plan.kind, plan.revision),
              nextCursor: () => 'after-full',
            };
          },
        },
      ],
    ]),
  }),
);

async function main() {
  const target = await createStore({ postgresUrl });
  // As a sync's writing thread opens it (src/syncs/version-writer-thread.ts): no memory map, so RSS is the writer's own.
  const store = await openStore(target.databaseUrl, { poolSize: 2, mmapBytes: 0 });
  await migrateToLatest(store.db, store.dialect.name);
  say(
    `Sync modes: ${N.toLocaleString('en')} invoices on ${target.description}; RSS before the first sync ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`,
  );
  let version = 0;
  const results: Record<string, { seconds: number; peakRss: number; result: VersionResult }> = {};

  async function sync(name: string, next: typeof plan, previousVersion: number | null): Promise<number> {
    plan = next;
    version++;
    global.gc?.();
    let peak = process.memoryUsage().rss;
    const started = performance.now();
    const result = await runVersionTask(
      store,
      {
        version,
        previousVersion,
        platformKey: 'bnch',
        dataType: 'invoices',
        settings: {},
        credentials: null,
        epoch: 0,
        cursor: next.kind === 'delta' ? 'after-full' : null,
        written: [],
        allowPrivate: false,
        now: new Date().toISOString(),
      },
      async () => {
        peak = Math.max(peak, process.memoryUsage().rss);
      },
    );
    const seconds = (performance.now() - started) / 1000;
    results[name] = { seconds, peakRss: peak, result };
    await store.db
      .insertInto('record_versions')
      .values({ version, connection_id: 'bench', data_type: 'invoices', records: result.count, dense: result.dense ? 1 : 0 })
      .execute();
    say(
      `${name.padEnd(34)} ${seconds.toFixed(2).padStart(8)} s  ${Math.round(result.count / seconds)
        .toLocaleString('en')
        .padStart(9)} records/s  ` +
        `peak RSS ${Math.round(peak / 2 ** 20)} MiB  (${result.count.toLocaleString('en')} records, ${result.modified.toLocaleString('en')} modified)`,
    );
    return version;
  }

  try {
    await sync('full, first sync, id order', { kind: 'sorted', revision: 0 }, null);
    const random = await sync('full, first sync, random order', { kind: 'random', revision: 0 }, null);
    const full = await sync('full, second sync, id order', { kind: 'sorted', revision: 0 }, random);
    await sync('delta: 10 changes, 1 delete', { kind: 'delta', revision: 1 }, full);
    const ratio = results['full, first sync, random order'].seconds / results['full, first sync, id order'].seconds;
    const delta = results['delta: 10 changes, 1 delete'].seconds / results['full, second sync, id order'].seconds;
    const peak = Math.max(...Object.values(results).map((r) => r.peakRss));
    say(`random order / id order: ${ratio.toFixed(2)} (target ≤ 1.2)`);
    say(`delta / full second sync: ${(delta * 100).toFixed(1)}% (target ≤ 10%)`);
    say(`peak RSS: ${Math.round(peak / 2 ** 20)} MiB (target ≤ 300 MiB)`);
  } finally {
    await store.close();
    await target.destroy();
  }
}

await main();
