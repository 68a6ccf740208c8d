import { createRequire } from 'node:module';
import { Worker, type WorkerOptions } from 'node:worker_threads';

function tsxApi(): string {
  // The ESM build of the API: tsx locates its loader relative to the file that registers it.
  return (
    'file://' +
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/index\.cjs$/, 'index.mjs')
  );
}

/**
 * A worker thread running `entry` (a module beside the caller, named without its extension): JavaScript once
 * built; under the test runner the sources are TypeScript, so tsx is registered inside the thread first.
 */
export function startSourceWorker(callerUrl: string, entry: string, options: WorkerOptions = {}): Worker {
  const typescript = callerUrl.endsWith('.ts');
  const url = new URL(`${entry}.${typescript ? 'ts' : 'js'}`, callerUrl);
  if (!typescript) return new Worker(url, options);
  return new Worker(`import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`, {
    ...options,
    eval: true,
  });
}
