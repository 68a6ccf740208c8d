import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // After a full run: every capability a platform claims was exercised by the test the matrix names
    // (test/capabilities/capability-check.ts).
    globalSetup: ['test/capabilities/capability-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores, so a 2-core machine (CI's) ran the files one at a time.
    // Most files wait on servers, child processes and browsers as much as they compute, so two at a time fit 2 cores.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Each file starts its own servers and stores (nothing of one file's state is held in modules), so files share a
    // worker's module graph instead of importing the service again per file: on 2 cores, a third of the suite's CPU.
    isolate: false,
    // A fixed key for the services tests start (on Postgres one is required); tests of the key itself unset it.
    env: { LEDGERPORT_SECRET_KEY: 'bGVkZ2VycG9ydCB0ZXN0IGtleSwgMzIgYnl0ZXMhISE=' },
  },
});
