import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { hledgerMissing, startHledgerWeb } from '../../helpers/hledger-web.js';
import { companySyncedFrom, expectLikeHledger } from '../../helpers/hledger-oracle.js';
import { sharedSamples } from '../../helpers/shared-samples.js';

/**
 * Real journals nobody on the project wrote (../shared/reference/samples/journals: hledger's and ledger's examples
 * and test inputs, a tutorial's four years of household books, paisa's import fixtures; GPL and AGPL files, so read
 * in place and never copied here), each served by Debian's hledger-web 1.25 and synced. Every expected figure comes
 * from running hledger itself on the same file: its accounts, its transactions, and for every month the balance
 * sheet's and the income statement's totals by top category at cost (`bse -M -B`, `is -M -B`) in the statements'
 * currency; and the enhanced (categorised) statements' items summed per month and top category equal `is -M -B`,
 * `bs -M -B` and `bse`'s equity.
 *
 * On Postgres (TEST_DATABASE_URL) one journal runs; the whole corpus runs on the SQLite leg.
 */
const missing = hledgerMissing();
if (missing) console.log(`skipping the hledger journal corpus: ${missing}`);
const dir = sharedSamples('journals');
const listed: { file: string; transactions: number }[] = dir ? JSON.parse(fs.readFileSync(path.join(dir, 'journals.json'), 'utf8')) : [];
const corpus = process.env.TEST_DATABASE_URL ? listed.filter((j) => j.file.endsWith('demo.ledger')) : listed;

describe.skipIf(missing !== undefined || dir === undefined)('real journals served by hledger-web, against hledger itself', () => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = await startTestServer({ connectors: { allowPrivate: true } });
    client = await server.newClient();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('has at least ten journals to read', () => {
    expect(listed.length).toBeGreaterThanOrEqual(10);
  });

  it.each(corpus.map((j) => [j.file]))(
    '%s: accounts, entries, every month of the balance sheet and P&L, and of the enhanced statements by top category, equal hledger bs/bse/is -B',
    async (file) => {
      const journal = path.join(dir!, file);
      const web = await startHledgerWeb(journal, { inPlace: true });
      try {
        const linked = await companySyncedFrom(server, client, web.url);

        await expectLikeHledger(server, client, linked.companyId, journal, file);
      } finally {
        await web.stop();
      }
    },
    180_000,
  );
});
