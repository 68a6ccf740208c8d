/**
 * Throughput and memory of the accounting Sandbox (not a test; vitest only collects *.test.ts).
 *
 *   node <compiled>/test/connectors/sandbox/accounting/bench.js [invoices=1000000] [dataType=invoices] [epoch=0] [--json]
 *
 * Compile first for representative numbers (tsx or vitest transforms are slower), e.g.:
 *   npx tsc --outDir /tmp/lp-bench --rootDir . --module NodeNext --moduleResolution NodeNext --target ES2022 \
 *     --skipLibCheck test/connectors/sandbox/accounting/bench.ts; ln -sfn "$PWD/node_modules" /tmp/lp-bench/node_modules
 *   node /tmp/lp-bench/test/connectors/sandbox/accounting/bench.js 1000000
 * Reports wall time, CPU time, records per second and peak RSS; `--json` also serialises every record as the
 * service does.
 */
import type { DataType } from '../../../../src/codat-model/data-types.js';
import { accountingSandbox } from '../../../../src/connectors/sandbox/accounting/index.js';

const invoices = Number(process.argv[2] ?? 1_000_000);
const dataType = (process.argv[3] ?? 'invoices') as DataType;
const epoch = Number(process.argv[4] ?? 0);
const json = process.argv.includes('--json');
const source = accountingSandbox.dataTypes.get(dataType);
if (!source) throw new Error(`unknown data type ${dataType}`);

for (let run = 1; run <= 3; run++) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let count = 0;
  let bytes = 0;
  for (const record of source.fetch({ settings: { seed: 42, invoices, asOf: '2025-06-30' }, epoch })) {
    count++;
    if (json) bytes += JSON.stringify(record.data).length;
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `run ${run}: ${count} ${dataType} in ${(wall / 1000).toFixed(2)} s = ${Math.round((count / wall) * 1000)}/s` +
      ` (cpu ${(cpuMs / 1000).toFixed(2)} s = ${Math.round((count / cpuMs) * 1000)}/s)` +
      `${json ? `, ${Math.round(bytes / count)} JSON bytes/record` : ''}, peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  );
}
