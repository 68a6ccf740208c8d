import { expect } from 'vitest';
import { http, type TestClient, type TestServer } from '../helpers/test-server.js';

export interface PageResult {
  status: number;
  headers: Headers;
  /** `Location` of a redirect, resolved against the request address. */
  location?: string;
  text: string;
}

async function toResult(response: Response, url: string): Promise<PageResult> {
  const location = response.headers.get('location');
  return {
    status: response.status,
    headers: response.headers,
    location: location ? new URL(location, url).href : undefined,
    text: await response.text(),
  };
}

/** A GET as a browser would send it (no API key), without following redirects. */
export async function getPage(url: string): Promise<PageResult> {
  return toResult(await fetch(url, { redirect: 'manual' }), url);
}

/** A plain HTML form submission (no API key), without following redirects. */
export async function submitForm(url: string, fields: Record<string, string>): Promise<PageResult> {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return toResult(response, url);
}

/** The four-letter key of the first platform of each source type, from `GET /integrations`. */
export async function platformKeys(
  server: TestServer,
  client: TestClient,
): Promise<Record<'Accounting' | 'Banking' | 'Commerce', { key: string; name: string }>> {
  const res = await http(server, 'GET', '/integrations?pageSize=100', { auth: client.auth });
  expect(res.status).toBe(200);
  const pick = (sourceType: string) => {
    const found = res.body.results.find((i: { sourceType: string }) => i.sourceType === sourceType);
    expect(found, `an integration of type ${sourceType}`).toBeTruthy();
    return { key: found.key as string, name: found.name as string };
  };
  return { Accounting: pick('Accounting'), Banking: pick('Banking'), Commerce: pick('Commerce') };
}

export async function setProfile(server: TestServer, client: TestClient, profile: Record<string, unknown>): Promise<void> {
  const res = await http(server, 'PUT', '/profile', { auth: client.auth, body: profile });
  expect(res.status, res.text).toBe(200);
}

export async function newCompany(
  server: TestServer,
  client: TestClient,
  name: string,
): Promise<{ id: string; redirect: string; name: string }> {
  const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export async function getConnection(server: TestServer, client: TestClient, companyId: string, connectionId: string) {
  const res = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Chooses a platform on the company's Link page; returns the start page address (the connection's linkUrl). */
export async function choosePlatform(
  server: TestServer,
  companyId: string,
  platformKey: string,
  custom: Record<string, string> = {},
): Promise<{ startUrl: string; connectionId: string }> {
  const fields: Record<string, string> = { platformKey };
  for (const [k, v] of Object.entries(custom)) fields[`custom.${k}`] = v;
  const res = await submitForm(`${server.url}/link/company/${companyId}/connections`, fields);
  expect(res.status, res.text).toBe(303);
  const match = /\/link\/companies\/[^/]+\/connections\/([^/?]+)\/start/.exec(res.location ?? '');
  expect(match, res.location).toBeTruthy();
  return { startUrl: res.location as string, connectionId: match![1] };
}
