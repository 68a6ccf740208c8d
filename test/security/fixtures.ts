import { authorize, companyWithConnection, waitForSyncs } from '../helpers/sandbox.js';
import { http, type TestClient, type TestServer } from '../helpers/test-server.js';

/** The Sandbox platform of each source type. A company holds at most one accounting connection. */
export const SANDBOX_PLATFORMS = { accounting: 'mqjo', banking: 'bsbx', commerce: 'aiwb' } as const;

/** The platform whose data a path reads: `banking-` paths → bsbx, `commerce-` paths → aiwb, anything else → mqjo. */
export function platformFor(template: string): string {
  if (template.includes('banking-')) return SANDBOX_PLATFORMS.banking;
  if (template.includes('commerce-')) return SANDBOX_PLATFORMS.commerce;
  return SANDBOX_PLATFORMS.accounting;
}

/**
 * Links one connection per platform to an existing company through the API (create, then authorise with the
 * small Sandbox data set), and waits until no sync of the company is Queued or Fetching.
 * Returns the connection id of each platform key.
 */
export async function linkPlatforms(
  server: TestServer,
  client: TestClient,
  companyId: string,
  platformKeys: readonly string[],
  authorization: Record<string, string> = { size: 'small' },
): Promise<Record<string, string>> {
  const connections: Record<string, string> = {};
  for (const platformKey of platformKeys) {
    const linked = await companyWithConnection(server, client, platformKey, companyId);
    await authorize(server, client, linked, authorization);
    connections[platformKey] = linked.connectionId;
  }
  await waitForSyncs(server, client, companyId);
  return connections;
}

/** The id of the first result of a paged list, read with the owner's key; fails when the list is empty or unreadable. */
export async function firstIdOf(server: TestServer, client: TestClient, listPath: string): Promise<string> {
  const res = await http(server, 'GET', `${listPath}?page=1&pageSize=1`, { auth: client.auth });
  if (res.status !== 200) throw new Error(`fixture: GET ${listPath} answered ${res.status}: ${res.text}`);
  const id = res.body?.results?.[0]?.id;
  if (typeof id !== 'string' || id === '') throw new Error(`fixture: GET ${listPath} has no result to take an id from: ${res.text}`);
  return id;
}

/** Attaches a no-op handler so a promise prepared ahead of the test that awaits it never counts as unhandled. */
export function prepared<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
