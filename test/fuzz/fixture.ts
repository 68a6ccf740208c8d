/**
 * The fixture company a hostile run must not change: linked to the accounting, banking and commerce Sandboxes and
 * synced. Its ids feed the safe (GET, HEAD) requests; its reads are compared before and after. Plain fetch, no
 * test-runner imports, so `npm run fuzz` can use it too.
 */

export interface Fixture {
  companyId: string;
  /** Real values for path parameters, by parameter name. */
  values: Record<string, string[]>;
  /** The reads that must come back the same after the run. */
  snapshot(): Promise<string>;
}

async function call(url: string, auth: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function idsOf(url: string, auth: string, path: string): Promise<string[]> {
  const page = await call(url, auth, 'GET', `${path}?pageSize=3`);
  return (page.results as { id: string }[]).map((r) => r.id);
}

/**
 * Creates and syncs a company (small Sandbox data sets) and collects real ids: the fixture that must read the same
 * after a run, or (`name` 'Fuzz throwaway') the company destructive requests may change.
 */
export async function prepareFixture(url: string, auth: string, name = 'Fuzz fixture', timeoutMs = 120_000): Promise<Fixture> {
  const company = await call(url, auth, 'POST', '/companies', {
    name,
    description: 'Made by the hostile-request run',
    tags: { role: 'fuzz' },
  });
  const connections: Record<string, string> = {};
  for (const platformKey of ['mqjo', 'bsbx', 'aiwb']) {
    const connection = await call(url, auth, 'POST', `/companies/${company.id}/connections`, { platformKey });
    await call(url, auth, 'PUT', `/companies/${company.id}/connections/${connection.id}/authorization`, { size: 'small' });
    connections[platformKey] = connection.id;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await call(url, auth, 'GET', `/companies/${company.id}/dataStatus`);
    const running = Object.values(status as Record<string, { currentStatus: string }>).filter(
      (s) => s.currentStatus === 'Queued' || s.currentStatus === 'Fetching',
    );
    if (running.length === 0) break;
    if (Date.now() > deadline) throw new Error(`fixture syncs still running: ${JSON.stringify(running)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const c = `/companies/${company.id}`;
  const banking = `${c}/connections/${connections.bsbx}/data`;
  const commerce = `${c}/connections/${connections.aiwb}/data`;
  const history = await call(url, auth, 'GET', `${c}/data/history?pageSize=3`);
  const values: Record<string, string[]> = {
    companyId: [company.id],
    connectionId: Object.values(connections),
    recordId: [
      ...(await idsOf(url, auth, `${c}/data/invoices`)),
      ...(await idsOf(url, auth, `${c}/data/customers`)),
      ...(await idsOf(url, auth, `${banking}/banking-transactions`)),
      ...(await idsOf(url, auth, `${commerce}/commerce-orders`)),
    ],
    accountId: await idsOf(url, auth, `${c}/connections/${connections.mqjo}/data/bankAccounts`),
    datasetId: (history.results as { id: string }[]).map((r) => r.id),
    platformKey: ['mqjo', 'bsbx', 'aiwb'],
    dataType: ['invoices', 'customers', 'bills', 'banking-transactions', 'commerce-orders'],
  };
  // Not the company's sync settings: they are merged over the client's, which `POST /profile/syncSettings` may
  // legitimately change during a run.
  const reads = [
    c,
    `${c}/connections`,
    `${c}/dataStatus`,
    `${c}/data/history?pageSize=100`,
    `${c}/push`,
    `${c}/data/invoices?pageSize=500`,
    `${c}/data/customers?pageSize=500`,
    `${banking}/banking-transactions?pageSize=500`,
    `${commerce}/commerce-orders?pageSize=500`,
  ];
  return {
    companyId: company.id,
    values,
    snapshot: async () => JSON.stringify(await Promise.all(reads.map((path) => call(url, auth, 'GET', path)))),
  };
}
