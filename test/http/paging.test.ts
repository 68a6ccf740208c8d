import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A client holding `count` companies named C0001, C0002, ... (created through the API). */
async function clientWith(count: number): Promise<TestClient> {
  const client = await server.newClient();
  for (let i = 1; i <= count; i++) {
    const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: `C${String(i).padStart(4, '0')}` } });
    expect(res.status).toBe(200);
  }
  return client;
}

async function page(client: TestClient, query: string) {
  const res = await http(server, 'GET', `/companies${query}`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const names = (body: { results: { name: string }[] }) => body.results.map((c) => c.name);

describe('paging arithmetic', () => {
  it('defaults to page 1 of 100 and omits next and previous on a single page', async () => {
    const client = await clientWith(0);
    const body = await page(client, '');
    expect(body).toEqual({
      results: [],
      pageNumber: 1,
      pageSize: 100,
      totalResults: 0,
      _links: { self: { href: '/companies' }, current: { href: '/companies?page=1&pageSize=100' } },
    });
  });

  it('handles one result', async () => {
    const client = await clientWith(1);
    const body = await page(client, '?page=1&pageSize=1');
    expect(body.totalResults).toBe(1);
    expect(names(body)).toEqual(['C0001']);
    expect(body._links.next).toBeUndefined();
    expect(body._links.previous).toBeUndefined();
  });

  it('pages an exact multiple: no next on the last page, no empty extra page', async () => {
    const client = await clientWith(10);
    const first = await page(client, '?page=1&pageSize=5');
    expect(names(first)).toEqual(['C0001', 'C0002', 'C0003', 'C0004', 'C0005']);
    expect(first._links).toEqual({
      self: { href: '/companies' },
      current: { href: '/companies?page=1&pageSize=5' },
      next: { href: '/companies?page=2&pageSize=5' },
    });
    const last = await page(client, '?page=2&pageSize=5');
    expect(names(last)).toEqual(['C0006', 'C0007', 'C0008', 'C0009', 'C0010']);
    expect(last.totalResults).toBe(10);
    expect(last._links.next).toBeUndefined();
    expect(last._links.previous).toEqual({ href: '/companies?page=1&pageSize=5' });
  });

  it('rounds the page count up and serves a short last page', async () => {
    const client = await clientWith(11);
    const middle = await page(client, '?page=2&pageSize=5');
    expect(middle._links.next).toEqual({ href: '/companies?page=3&pageSize=5' });
    expect(middle._links.previous).toEqual({ href: '/companies?page=1&pageSize=5' });
    const last = await page(client, '?page=3&pageSize=5');
    expect(names(last)).toEqual(['C0011']);
    expect(last._links.next).toBeUndefined();
  });

  it('answers a page past the end with empty results and a previous link to the last page', async () => {
    const client = await clientWith(7);
    const body = await page(client, '?page=9&pageSize=5');
    expect(body).toMatchObject({ results: [], pageNumber: 9, pageSize: 5, totalResults: 7 });
    expect(body._links.next).toBeUndefined();
    expect(body._links.previous).toEqual({ href: '/companies?page=2&pageSize=5' });
    expect(body._links.current).toEqual({ href: '/companies?page=9&pageSize=5' });
  });

  it('keeps the query and orderBy in current, next and previous, and counts after the filter', async () => {
    const client = await clientWith(12);
    const query = encodeURIComponent('name~C001 || name=C0002');
    const body = await page(client, `?page=2&pageSize=2&query=${query}&orderBy=-name`);
    expect(body.totalResults).toBe(4); // C0010, C0011, C0012, C0002
    expect(names(body)).toEqual(['C0010', 'C0002']);
    expect(body._links.current.href).toBe(`/companies?page=2&pageSize=2&query=${query}&orderBy=-name`);
    expect(body._links.previous.href).toBe(`/companies?page=1&pageSize=2&query=${query}&orderBy=-name`);
    expect(body._links.next).toBeUndefined();
    const followed = await page(client, body._links.previous.href.replace('/companies', ''));
    expect(names(followed)).toEqual(['C0012', 'C0011']);
  });

  it('serves pageSize 5000 in full, and the next page after it', async () => {
    const client = await server.newClient();
    const created = new Date().toISOString();
    const rows = Array.from({ length: 5001 }, (_, i) => {
      const id = randomUUID();
      const name = `Bulk ${String(i).padStart(5, '0')}`;
      return {
        id,
        client_id: client.clientId,
        name,
        created,
        doc: JSON.stringify({ id, name, created, products: [], tags: {}, referenceSubsidiaryCompanies: [] }),
      };
    });
    for (let i = 0; i < rows.length; i += 500) {
      await server.store.db
        .insertInto('companies')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    const full = await page(client, '?page=1&pageSize=5000');
    expect(full.results).toHaveLength(5000);
    expect(full.totalResults).toBe(5001);
    expect(full._links.next).toEqual({ href: '/companies?page=2&pageSize=5000' });
    const rest = await page(client, '?page=2&pageSize=5000');
    expect(names(rest)).toEqual(['Bulk 05000']);
  });
});

describe('invalid paging parameters', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await clientWith(0);
  });

  it.each([
    ['pageSize=0', 'pageSize', /^pageSize must be at least 1\./],
    ['pageSize=5001', 'pageSize', /^pageSize must be at most 5000\./],
    ['pageSize=-3', 'pageSize', /^pageSize must be at least 1\./],
    ['pageSize=2.5', 'pageSize', /^pageSize must be an integer\./],
    ['pageSize=ten', 'pageSize', /^pageSize must be an integer\./],
    ['page=0', 'page', /^page must be at least 1\./],
    ['page=-1', 'page', /^page must be at least 1\./],
    ['page=1.5', 'page', /^page must be an integer\./],
    ['page=abc', 'page', /^page must be an integer\./],
  ])('%s answers 400 naming %s', async (qs, itemId, message) => {
    const res = await http(server, 'GET', `/companies?${qs}`, { auth: client.auth });
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors).toHaveLength(1);
    expect(body.validation.errors[0].itemId).toBe(itemId);
    expect(body.validation.errors[0].message).toMatch(message);
  });

  it('names both parameters when both are wrong', async () => {
    const res = await http(server, 'GET', '/companies?page=0&pageSize=9999', { auth: client.auth });
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors.map((e: { itemId: string }) => e.itemId).sort()).toEqual(['page', 'pageSize']);
  });
});
