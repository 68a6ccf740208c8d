import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { companyWithConnection, type LinkedCompany } from '../helpers/sandbox.js';

/**
 * `datatypeFeatures` says what each platform does with each data type, and the API behaves as it says: a data type
 * listed with `Post`, `Put` or `Delete` takes that write (it gets past the operation check to the next one: the
 * connection is not linked), and one listed without it answers 405 (or 404 when the type takes no writes at all).
 */

let server: TestServer;
let client: TestClient;
const connections: Record<string, LinkedCompany> = {};

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
  for (const key of ['mqjo', 'bsbx', 'aiwb']) connections[key] = await companyWithConnection(server, client, key);
});
afterAll(() => server.close());

const WRITES = [
  ['Post', 'POST', ''],
  ['Put', 'PUT', '/some-record'],
  ['Delete', 'DELETE', '/some-record'],
] as const;

describe('datatypeFeatures', () => {
  it.each(['mqjo', 'bsbx', 'aiwb'])(
    '%s: every listed data type is readable, and its write features match what the push endpoints take',
    async (key) => {
      const integration = (await http(server, 'GET', `/integrations/${key}`, { auth: client.auth })).body;
      const { companyId, connectionId } = connections[key];
      let writable = 0;
      for (const { datatype, dataType, supportedFeatures } of integration.datatypeFeatures) {
        expect(datatype).toBe(dataType);
        const features = new Set(supportedFeatures.map((f: { featureType: string; featureState: string }) => f.featureType));
        expect(features.has('Get'), dataType).toBe(true);
        for (const f of supportedFeatures) expect(f.featureState).toBe('Release');
        const takesWrites = WRITES.some(([feature]) => features.has(feature));
        if (takesWrites) writable++;
        const options = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}/options/${dataType}`, {
          auth: client.auth,
        });
        expect(options.status, `${dataType} options`).toBe(takesWrites ? 200 : 404);
        for (const [feature, method, suffix] of WRITES) {
          const res = await http(server, method, `/companies/${companyId}/connections/${connectionId}/push/${dataType}${suffix}`, {
            auth: client.auth,
            body: method === 'DELETE' ? undefined : {},
          });
          const expected = !takesWrites ? 404 : features.has(feature) ? 400 : 405;
          expect(res.status, `${method} ${dataType}: ${res.text}`).toBe(expected);
        }
      }
      // The accounting Sandbox takes writes of most of its types; the banking and commerce ones take none.
      if (key === 'mqjo') expect(writable).toBeGreaterThan(10);
      else expect(writable).toBe(0);
    },
  );
});
