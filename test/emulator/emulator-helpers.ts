import { expect } from 'vitest';
import type { CodatPlatform } from '@codat/platform';
import { DATA_TYPES } from '../../src/codat-model/data-types.js';
import { http, type TestClient } from '../helpers/test-server.js';

type Server = { url: string };

/** Creates a test clock frozen at `frozenTime`; returns its id. */
export async function createClock(server: Server, client: Pick<TestClient, 'auth'>, frozenTime: string): Promise<string> {
  const res = await http(server, 'POST', '/emulator/clocks', { auth: client.auth, body: { frozenTime } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** Creates a test clock frozen at `frozenTime` and puts the client on it; returns its id. */
export async function clientOnClock(server: Server, client: Pick<TestClient, 'auth'>, frozenTime: string): Promise<string> {
  const clockId = await createClock(server, client, frozenTime);
  const joined = await http(server, 'PUT', '/emulator/client/clock', { auth: client.auth, body: { clockId } });
  expect(joined.status, joined.text).toBe(200);
  return clockId;
}

/** Advances a clock and waits until it is ready again; returns the clock. */
export async function advance(
  server: Server,
  client: Pick<TestClient, 'auth'>,
  clockId: string,
  body: { to: string } | { by: string },
  timeoutMs = 120_000,
): Promise<{ id: string; frozenTime: string; status: string }> {
  const started = await http(server, 'POST', `/emulator/clocks/${clockId}/advance`, { auth: client.auth, body });
  expect(started.status, started.text).toBe(202);
  expect(started.body.status).toBe('advancing');
  return untilReady(server, client, clockId, timeoutMs);
}

/** Waits until a clock is ready (its advance has finished); returns the clock. */
export async function untilReady(
  server: Server,
  client: Pick<TestClient, 'auth'>,
  clockId: string,
  timeoutMs = 120_000,
): Promise<{ id: string; frozenTime: string; status: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http(server, 'GET', `/emulator/clocks/${clockId}`, { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    if (res.body.status === 'ready') return res.body;
    if (Date.now() > deadline) throw new Error(`clock ${clockId} still advancing after ${timeoutMs} ms: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `at` moved on by `ms`, as an ISO string. */
export const plus = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();
export const HOUR = 3_600_000;

/** Client sync settings (through the SDK) with only `types` fetched, on first link and every `hours`. */
export async function onlyTypes(sdk: CodatPlatform, clientId: string, types: readonly string[], hours: number): Promise<void> {
  await sdk.settings.updateSyncSettings({
    clientId,
    overridesDefaults: true,
    settings: DATA_TYPES.map((dataType, syncOrder) =>
      types.includes(dataType)
        ? { dataType: dataType as never, fetchOnFirstLink: true, syncSchedule: hours, syncOrder }
        : { dataType: dataType as never, fetchOnFirstLink: false, syncSchedule: 0, syncOrder },
    ),
  });
}

/** Client sync settings with only `invoices` fetched, on first link and every `hours`. */
export const onlyInvoices = (sdk: CodatPlatform, clientId: string, hours: number) => onlyTypes(sdk, clientId, ['invoices'], hours);

/** A company with a linked accounting Sandbox (small), made through the SDK. */
export async function sandboxCompany(sdk: CodatPlatform, name: string): Promise<{ companyId: string; connectionId: string }> {
  const company = await sdk.companies.create({ name });
  const connection = await sdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'mqjo' } });
  await sdk.connections.updateAuthorization({ companyId: company.id, connectionId: connection.id, requestBody: { size: 'small' } });
  return { companyId: company.id, connectionId: connection.id };
}

/** The company's invoices pull operations, oldest first (through the SDK). */
export async function invoicePulls(sdk: CodatPlatform, companyId: string) {
  const page = await sdk.refreshData.listPullOperations({ companyId, query: 'dataType=invoices', orderBy: 'requested', pageSize: 5000 });
  return page.results ?? [];
}
