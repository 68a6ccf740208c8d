// `npm run bench`: the whole benchmark suite, one part after another (docs/benchmarks.md). Arguments after `--` go
// to the read and ingest benchmark (bench/run.mjs), e.g. `npm run bench -- --stores sqlite,postgres`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// This Node for every part (tsx as its loader): no npx lookup, no download prompt.
const parts = [
  [process.execPath, ['bench/run.mjs', ...process.argv.slice(2)]],
  [process.execPath, ['--import', 'tsx', 'bench/sync-modes.ts']],
  [process.execPath, ['bench/statement-import.mjs']],
];
for (const [command, args] of parts) {
  const { status, signal, error } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (status !== 0) {
    const how = error ? `could not start: ${error.message}` : signal ? `ended by ${signal}` : `ended with ${status}`;
    process.stderr.write(`bench: ${args.join(' ')} ${how}\n`);
    process.exit(status ?? 1);
  }
}
