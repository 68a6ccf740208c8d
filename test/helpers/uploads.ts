import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { http, type HttpResult, type TestClient } from './test-server.js';

type Server = { url: string };

/** A statement sample copied into the repo (test/connectors/bank-statements/samples, with its licence). */
export function statementSample(path: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(fileURLToPath(new URL(`../connectors/bank-statements/samples/${path}`, import.meta.url))));
}

/** POSTs files (and form fields) as multipart/form-data parts named `file`, as Codat's SDKs and browsers do. */
export async function uploadFiles(
  server: Server,
  auth: string | undefined,
  companyId: string,
  connectionId: string,
  files: { name: string; bytes: Uint8Array; type?: string }[],
  fields: Record<string, string> = {},
): Promise<HttpResult> {
  const form = new FormData();
  for (const file of files)
    form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }), file.name);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await fetch(`${server.url}/companies/${companyId}/connections/${connectionId}/files`, {
    method: 'POST',
    headers: auth === undefined ? {} : { authorization: auth },
    body: form,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : undefined,
    text,
  };
}

/** A company with a Bank statement files (`fstm`) connection, Linked from the start. */
export async function statementConnection(server: Server, client: Pick<TestClient, 'auth'>, name = 'Statements Ltd') {
  const company = await http(server, 'POST', '/companies', { auth: client.auth, body: { name } });
  expect(company.status, company.text).toBe(200);
  const connection = await http(server, 'POST', `/companies/${company.body.id}/connections`, {
    auth: client.auth,
    body: { platformKey: 'fstm' },
  });
  expect(connection.status, connection.text).toBe(200);
  expect(connection.body.status).toBe('Linked');
  return { companyId: company.body.id as string, connectionId: connection.body.id as string };
}

/** Every record of a connection's data type, all pages (none when it never synced). */
export async function allRecords(
  server: Server,
  auth: string,
  target: { companyId: string; connectionId: string },
  dataType: string,
  query?: string,
): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const q = query ? `&query=${encodeURIComponent(query)}` : '';
    const res = await http(
      server,
      'GET',
      `/companies/${target.companyId}/connections/${target.connectionId}/data/${dataType}?page=${page}&pageSize=5000${q}`,
      { auth },
    );
    // 409: the data type never synced (nothing uploaded yet).
    if (res.status === 409 && page === 1) return out;
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.results);
    if (out.length >= res.body.totalResults || res.body.results.length === 0) return out;
  }
}
