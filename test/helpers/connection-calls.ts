import { expect } from 'vitest';
import { DATA_PATHS } from '../../src/data/data-paths.js';
import { http, type TestClient } from './test-server.js';
import { waitForOperation, waitForSyncs, type LinkedCompany } from './sandbox.js';

type Server = { url: string };

/**
 * Where Codat serves a data type's list (or, for a single-record type such as `commerce-companyInfo`, its record):
 * under the company, or under the connection (src/data/data-paths.ts), as `/openapi.json` names the path.
 */
export function servedAt(dataType: string): { template: string; kind: 'list' | 'single' } {
  const path =
    DATA_PATHS.find((p) => p.dataType === dataType && p.kind === 'list') ??
    DATA_PATHS.find((p) => p.dataType === dataType && p.kind === 'single');
  if (!path) throw new Error(`no path serves ${dataType}`);
  const under = path.scope === 'connection' ? '/companies/{companyId}/connections/{connectionId}' : '/companies/{companyId}';
  return { template: `${under}/data/${path.segment}`, kind: path.kind };
}

/** A vendor's fake that injects faults into the requests whose path matches, and logs every API request's status. */
interface FaultyFake {
  inject(fault: { status: 500 | 503; count: number; path?: RegExp }): void;
  apiRequests(): { status?: number }[];
}

/**
 * The calls a platform's tests make on one linked connection: any API call, queue a sync and wait for it, read a
 * data type whole (every page), push a record and wait for the platform's answer. Given getters, since a test file
 * starts its server and links its connection in hooks.
 */
export function connectionCalls(server: () => Server, client: () => Pick<TestClient, 'auth'>, linked: () => LinkedCompany) {
  const api = (method: string, path: string, body?: unknown) => http(server(), method, path, { auth: client().auth, body });

  /** Where Codat serves a data type on this connection (see servedAt). */
  function pathOf(dataType: string): string {
    const { companyId, connectionId } = linked();
    return servedAt(dataType).template.replace('{companyId}', companyId).replace('{connectionId}', connectionId);
  }

  async function queue(dataType: string) {
    const res = await api('POST', `/companies/${linked().companyId}/data/queue/${dataType}`);
    expect(res.status, res.text).toBe(200);
    return waitForOperation(server(), client(), linked().companyId, res.body.id);
  }

  /**
   * Queues a sync of `dataType` into a storm of `count` 429s already injected into `fake`: the sync completes, and it
   * met (and waited out) every one of them.
   */
  async function queueThroughStorm(fake: { apiRequests(): { status?: number }[] }, dataType: string, count: number) {
    const before = fake.apiRequests().length;
    const op = await queue(dataType);
    expect(op.status, JSON.stringify(op)).toBe('Complete');
    expect(
      fake
        .apiRequests()
        .slice(before)
        .filter((r) => r.status === 429),
    ).toHaveLength(count);
    return op;
  }

  /**
   * A platform answering 5xx to `dataType`'s reads (`path`), the fake injecting them: one is retried within the read
   * and the sync completes; `attempts` (a read's) in a row end the sync `FetchError`, naming the status, with the
   * connection still Linked; the next sync completes.
   */
  async function queueThroughServerErrors(fake: FaultyFake, dataType: string, path: RegExp, attempts: number) {
    fake.inject({ status: 503, count: 1, path });
    let before = fake.apiRequests().length;
    const recovered = await queue(dataType);
    expect(recovered.status, JSON.stringify(recovered)).toBe('Complete');
    expect(
      fake
        .apiRequests()
        .slice(before)
        .filter((r) => r.status === 503),
    ).toHaveLength(1);

    fake.inject({ status: 500, count: attempts, path });
    before = fake.apiRequests().length;
    const failed = await queue(dataType);
    expect(failed.status, JSON.stringify(failed)).toBe('FetchError');
    expect(JSON.stringify(failed)).toContain('HTTP 500');
    expect(
      fake
        .apiRequests()
        .slice(before)
        .filter((r) => r.status === 500),
    ).toHaveLength(attempts);
    const { companyId, connectionId } = linked();
    expect((await api('GET', `/companies/${companyId}/connections/${connectionId}`)).body.status).toBe('Linked');
    expect((await queue(dataType)).status).toBe('Complete');
  }

  async function allRecords(dataType: string): Promise<Record<string, any>[]> {
    const out: Record<string, any>[] = [];
    for (let page = 1; ; page++) {
      const res = await api('GET', `${pathOf(dataType)}?page=${page}&pageSize=500`);
      expect(res.status, res.text).toBe(200);
      out.push(...res.body.results);
      if (out.length >= res.body.totalResults) return out;
    }
  }

  /**
   * Sends a write (POST creates, PUT updates `recordId`) and waits for the push operation to finish, and then for the
   * sync a successful write queues of its data type: left running, it would refuse the next test's sync of that type
   * (DatasetAlreadyInProgress) or take the faults the next test injects.
   */
  async function push(dataType: string, record: unknown, update?: { recordId: string }) {
    const { companyId, connectionId } = linked();
    const path = `/companies/${companyId}/connections/${connectionId}/push/${dataType}${update ? `/${update.recordId}` : ''}`;
    return settled(await api(update ? 'PUT' : 'POST', path, record));
  }

  /** Deletes a record through the push API, and waits as `push` does. */
  async function pushDelete(dataType: string, recordId: string) {
    const { companyId, connectionId } = linked();
    return settled(await api('DELETE', `/companies/${companyId}/connections/${connectionId}/push/${dataType}/${recordId}`));
  }

  async function settled(res: Awaited<ReturnType<typeof api>>) {
    expect(res.status, res.text).toBe(200);
    const { companyId } = linked();
    let op = res.body;
    for (let i = 0; i < 200 && op.status === 'Pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      op = (await api('GET', `/companies/${companyId}/push/${res.body.pushOperationKey}`)).body;
    }
    await waitForSyncs(server(), client(), companyId);
    return op;
  }

  /** Links the connection as a browser would: follows its linkUrl through the platform's consent to the finish page. */
  async function linkByFollowing(platformName: string): Promise<void> {
    const { companyId, connectionId } = linked();
    const connection = (await api('GET', `/companies/${companyId}/connections/${connectionId}`)).body;
    const end = await fetch(connection.linkUrl, { redirect: 'follow' });
    expect(end.status).toBe(200);
    expect(await end.text()).toContain(`${platformName} is now connected`);
    expect((await api('GET', `/companies/${companyId}/connections/${connectionId}`)).body.status).toBe('Linked');
  }

  return { api, pathOf, queue, queueThroughStorm, queueThroughServerErrors, allRecords, push, pushDelete, linkByFollowing };
}
