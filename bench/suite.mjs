// `npm run bench`: the whole benchmark suite, one part after another (docs/benchmarks.md). Arguments after `--` go
// to the read and ingest benchmark (bench/run.mjs), e.g. `npm run bench -- --stores sqlite,postgres`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const parts = [
  ['node', ['bench/run.mjs', ...process.argv.slice(2)]],
  ['npx', ['tsx', 'bench/sync-modes.ts']],
  ['node', ['bench/statement-import.mjs']],
];
for (const [command, args] of parts) {
  const { status, signal } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (status !== 0) {
    process.stderr.write(`bench: ${[command, ...args].join(' ')} ended ${signal ?? `with ${status}`}\n`);
    process.exit(status ?? 1);
  }
}
