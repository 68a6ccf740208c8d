import { beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, requireChromiumInCi } from '../../helpers/browser.js';
import { platformInBrowser } from '../../helpers/platform-browser.js';
import { http } from '../../helpers/test-server.js';
import { startQboFake } from '../../fakes/quickbooks/qbo-fake.js';

/**
 * Linking QuickBooks Online through the hosted Link page in Debian's Chromium: the platform choice leads to
 * Intuit's consent page (the fake's), whose redirect names the company (realm) the user picked; a refused consent
 * ends as a cancelled link. Skipped without Chromium, except under CI.
 */
requireChromiumInCi('Linking QuickBooks Online in a browser');
if (!hasChromium) console.log('skipping the QuickBooks Link page tests: Chromium is not installed at /usr/bin/chromium');

describe.skipIf(!hasChromium)('Linking QuickBooks Online in a browser', { timeout: 60_000 }, () => {
  const world = platformInBrowser(startQboFake, (f) => f.env());
  let { fake, server, client, browser } = world;
  beforeAll(() => {
    ({ fake, server, client, browser } = world);
  });

  async function quickbooksConnection(name: string) {
    const companyId = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name } })).body.id;
    const page = await browser.newPage();
    await page.goto(`${server.url}/link/company/${companyId}`);
    await page.getByRole('button', { name: 'QuickBooks Online' }).click();
    const heading = await page.locator('h1').textContent();
    await page.close();
    const list = await http(server, 'GET', `/companies/${companyId}/connections`, { auth: client.auth });
    return { heading, connection: list.body.results.find((c: { integrationKey: string }) => c.integrationKey === 'qhyg') };
  }

  it('chooses QuickBooks Online on the Link page, consents at Intuit, and finishes linked to the realm picked there', async () => {
    const realm = fake.addRealm('Craig’s Design and Landscaping');
    fake.consent = { grant: true, realm };
    const { heading, connection } = await quickbooksConnection('Craig’s Design Ltd');
    expect(heading).toBe('Connected');
    expect(connection.status).toBe('Linked');
    const row = await server.store.db
      .selectFrom('connections')
      .select('settings')
      .where('id', '=', connection.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.settings ?? '{}')).toMatchObject({ realmId: realm.realmId });
  });

  it('ends as a cancelled link when the end user refuses consent; the connection stays PendingAuth', async () => {
    fake.consent = { grant: false };
    const { heading, connection } = await quickbooksConnection('Refusing Ltd');
    expect(heading).toBe('Connection cancelled');
    expect(connection.status).toBe('PendingAuth');
    fake.consent = { grant: true };
    expect(fake.violations).toEqual([]);
  });
});
