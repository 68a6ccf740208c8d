import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A fixed key for the services tests start (on Postgres one is required); tests of the key itself unset it.
    env: { LEDGERPORT_SECRET_KEY: 'bGVkZ2VycG9ydCB0ZXN0IGtleSwgMzIgYnl0ZXMhISE=' },
  },
});
