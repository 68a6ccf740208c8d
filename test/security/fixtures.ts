import { authorize, companyWithConnection, waitForSyncs } from '../helpers/sandbox.js';
import { http, type TestClient, type TestServer } from '../helpers/test-server.js';
import { statementSample, uploadFiles } from '../helpers/uploads.js';

/** The Sandbox platform of each source type. A company holds at most one accounting connection. */
export const SANDBOX_PLATFORMS = { accounting: 'mqjo', banking: 'bsbx', commerce: 'aiwb' } as const;

/** Bank statement files: the platform file uploads are read by and upload sessions feed. */
export const STATEMENT_PLATFORM = 'fstm';

/**
 * The platform whose data a path reads: uploads (`/files` of a connection, `/bankStatements/upload`) → fstm,
 * `banking-` paths → bsbx, `commerce-` paths → aiwb, anything else → mqjo.
 */
export function platformFor(template: string): string {
  if (template.includes('/bankStatements/upload') || /\/connections\/\{connectionId\}\/files$/.test(template)) return STATEMENT_PLATFORM;
  if (template.includes('banking-')) return SANDBOX_PLATFORMS.banking;
  if (template.includes('commerce-') || template.includes('/commerceMetrics/')) return SANDBOX_PLATFORMS.commerce;
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

/** A statement sample every upload fixture sends (MT940, one statement, three transactions). */
export const STATEMENT_FILE = { name: 'sberbank.sta', path: 'mt940/wolph-sberbank-171011_01234945.sta' };

/**
 * A Bank statement files connection in the company with a statement uploaded (and synced), an upload
 * configuration for account `acc-1`, and a `banking-accounts` upload session open: what the upload endpoints
 * need to answer 2xx.
 */
export async function statementFixture(
  server: TestServer,
  client: TestClient,
  companyId: string,
): Promise<{ connectionId: string; datasetId: string }> {
  const connection = await http(server, 'POST', `/companies/${companyId}/connections`, {
    auth: client.auth,
    body: { platformKey: STATEMENT_PLATFORM },
  });
  if (connection.status !== 200) throw new Error(`fixture: creating an fstm connection answered ${connection.status}: ${connection.text}`);
  const connectionId = connection.body.id as string;
  const uploaded = await uploadFiles(server, client.auth, companyId, connectionId, [
    { name: STATEMENT_FILE.name, bytes: statementSample(STATEMENT_FILE.path) },
  ]);
  if (uploaded.status !== 200) throw new Error(`fixture: the upload answered ${uploaded.status}: ${uploaded.text}`);
  const base = `/companies/${companyId}/connections/${connectionId}/bankStatements/upload`;
  const config = await http(server, 'POST', `${base}/configuration`, { auth: client.auth, body: { source: 'codat', accountId: 'acc-1' } });
  if (config.status !== 200) throw new Error(`fixture: the upload configuration answered ${config.status}: ${config.text}`);
  const session = await http(server, 'POST', `${base}/startSession`, { auth: client.auth, body: { dataType: 'banking-accounts' } });
  if (session.status !== 200) throw new Error(`fixture: starting an upload session answered ${session.status}: ${session.text}`);
  await waitForSyncs(server, client, companyId);
  return { connectionId, datasetId: session.body.id as string };
}

/** A BankingAccount page for the fixture's configured account. */
export function uploadedAccount(): Record<string, unknown> {
  return {
    id: 'acc-1',
    name: 'Fixture account',
    type: 'Debit',
    currency: 'GBP',
    balance: { current: 10, available: null, limit: null },
    identifiers: { type: 'Depository', number: '12345678' },
    institution: { name: 'Fixture Bank' },
  };
}
