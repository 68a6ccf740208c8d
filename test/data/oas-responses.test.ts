import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { linkedSandbox, waitForSyncs, type LinkedCompany } from '../helpers/sandbox.js';
import { codatOasOrSkip, oasErrors, oasValidator, type OasFile } from '../helpers/oas.js';

/**
 * Banking and commerce responses, as served over HTTP (pages, single records, company info), validate against
 * the schemas of Codat's published OpenAPI documents.
 */

const PAGES: [OasFile, string, string, string | undefined][] = [
  ['Codat-Banking.json', 'banking-accounts', 'Accounts', 'Account'],
  ['Codat-Banking.json', 'banking-accountBalances', 'AccountBalances', undefined],
  ['Codat-Banking.json', 'banking-transactions', 'Transactions', 'Transaction'],
  ['Codat-Banking.json', 'banking-transactionCategories', 'TransactionCategories', 'TransactionCategory'],
  ['Codat-Commerce.json', 'commerce-customers', 'Customers', 'Customer'],
  ['Codat-Commerce.json', 'commerce-disputes', 'Disputes', 'Dispute'],
  ['Codat-Commerce.json', 'commerce-locations', 'Locations', 'Location'],
  ['Codat-Commerce.json', 'commerce-orders', 'Orders', 'Order'],
  ['Codat-Commerce.json', 'commerce-payments', 'Payments', 'Payment'],
  ['Codat-Commerce.json', 'commerce-paymentMethods', 'PaymentMethods', 'PaymentMethod'],
  ['Codat-Commerce.json', 'commerce-products', 'Products', 'Product'],
  ['Codat-Commerce.json', 'commerce-productCategories', 'ProductCategories', 'ProductCategory'],
  ['Codat-Commerce.json', 'commerce-taxComponents', 'TaxComponents', 'TaxComponent'],
  ['Codat-Commerce.json', 'commerce-transactions', 'Transactions', 'Transaction'],
];

let server: TestServer;
let client: TestClient;
const linked: Record<string, LinkedCompany> = {};

const oasHere = codatOasOrSkip();

beforeAll(async () => {
  if (!oasHere) return;
  server = await startTestServer();
  client = await server.newClient();
  for (const key of ['bsbx', 'aiwb']) {
    linked[key] = await linkedSandbox(server, client, key, { size: 'small' });
    await waitForSyncs(server, client, linked[key].companyId);
  }
}, 120_000);
afterAll(() => server?.close());

describe.skipIf(!oasHere)("banking and commerce responses match Codat's OpenAPI schemas", () => {
  it.each(PAGES)('%s %s', async (file, segment, pageSchema, recordSchema) => {
    const { companyId, connectionId } = linked[file === 'Codat-Banking.json' ? 'bsbx' : 'aiwb'];
    const base = `/companies/${companyId}/connections/${connectionId}/data/${segment}`;
    const page = await http(server, 'GET', `${base}?pageSize=200`, { auth: client.auth });
    expect(page.status, page.text).toBe(200);
    expect(page.body.results.length).toBeGreaterThan(0);
    const validatePage = oasValidator(file, pageSchema);
    expect(validatePage(page.body), oasErrors(validatePage)).toBe(true);
    if (recordSchema) {
      const one = await http(server, 'GET', `${base}/${encodeURIComponent(page.body.results[0].id)}`, { auth: client.auth });
      expect(one.status, one.text).toBe(200);
      const validateRecord = oasValidator(file, recordSchema);
      expect(validateRecord(one.body), oasErrors(validateRecord)).toBe(true);
    }
  });

  it('commerce-info', async () => {
    const { companyId, connectionId } = linked.aiwb;
    const info = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}/data/commerce-info`, { auth: client.auth });
    expect(info.status, info.text).toBe(200);
    const validate = oasValidator('Codat-Commerce.json', 'CompanyInfo');
    expect(validate(info.body), oasErrors(validate)).toBe(true);
  });

  it('company-scoped banking transactions', async () => {
    const { companyId } = linked.bsbx;
    const page = await http(server, 'GET', `/companies/${companyId}/data/banking-transactions?pageSize=50`, { auth: client.auth });
    expect(page.status).toBe(200);
    const validate = oasValidator('Codat-Banking.json', 'Transactions');
    expect(validate(page.body), oasErrors(validate)).toBe(true);
  });
});
