import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { advance, createClock, HOUR, plus, untilReady } from './emulator-helpers.js';

/** The test clock controls (issue 32): on only with the emulator, scoped to their client. */

let off: TestServer;
let on: TestServer;

beforeAll(async () => {
  [off, on] = await Promise.all([startTestServer(), startTestServer({ emulator: true })]);
});
afterAll(async () => {
  await Promise.all([off.close(), on.close()]);
});

const T = '2027-01-01T00:00:00.000Z';

describe('without EMULATOR', () => {
  it('answers the normal 404 under /emulator/ and leaves /openapi.json without the controls', async () => {
    const client = await off.newClient();
    for (const [method, path] of [
      ['POST', '/emulator/clocks'],
      ['GET', '/emulator/clocks'],
      ['GET', `/emulator/clocks/${randomUUID()}`],
      ['PUT', '/emulator/client/clock'],
      ['POST', '/emulator/faults'],
      ['GET', '/emulator/faults'],
      ['DELETE', '/emulator/faults'],
      ['GET', `/emulator/faults/${randomUUID()}`],
      ['GET', '/emulator/requests'],
      ['POST', '/emulator/requests/verify'],
      ['POST', '/emulator/events'],
      ['POST', '/emulator/reset'],
    ] as const) {
      const res = await http(off, method, path, { auth: client.auth, ...(method === 'GET' ? {} : { body: {} }) });
      expectErrorBody(res, 404);
    }
    const spec = (await http(off, 'GET', '/openapi.json')).body;
    expect(Object.keys(spec.paths).filter((p) => p.startsWith('/emulator'))).toEqual([]);
    expect(JSON.stringify(spec)).not.toContain('Emulator');
    const withIt = (await http(on, 'GET', '/openapi.json')).body;
    expect(
      Object.keys(withIt.paths)
        .filter((p) => p.startsWith('/emulator'))
        .sort(),
    ).toEqual([
      '/emulator/client/clock',
      '/emulator/clocks',
      '/emulator/clocks/{clockId}',
      '/emulator/clocks/{clockId}/advance',
      '/emulator/companies/{companyId}/clock',
      '/emulator/events',
      '/emulator/faults',
      '/emulator/faults/{faultId}',
      '/emulator/requests',
      '/emulator/requests/verify',
      '/emulator/reset',
    ]);
    expect(withIt.paths['/emulator/clocks'].post.tags).toEqual(['Emulator']);
    // Off, the header is not there either: the same document apart from the emulator's paths, schema and header.
    const stripped = structuredClone(withIt);
    for (const path of Object.keys(stripped.paths)) if (path.startsWith('/emulator')) delete stripped.paths[path];
    for (const schema of ['TestClock', 'EmulatorFault', 'EmulatorJournalEntry']) delete stripped.components.schemas[schema];
    stripped.paths['/companies'].post.parameters = stripped.paths['/companies'].post.parameters.filter(
      (p: { name: string }) => p.name !== 'emulator-clock',
    );
    if (stripped.paths['/companies'].post.parameters.length === 0) delete stripped.paths['/companies'].post.parameters;
    expect(stripped).toEqual(spec);
  });
});

describe('test clocks', () => {
  it('creates, reads, lists and deletes clocks of the calling client only', async () => {
    const [owner, other] = [await on.newClient(), await on.newClient()];
    const created = await http(on, 'POST', '/emulator/clocks', { auth: owner.auth, body: { frozenTime: '2027-01-01T01:00:00+01:00' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), frozenTime: T, status: 'ready' });
    const id = created.body.id;
    expect((await http(on, 'GET', `/emulator/clocks/${id}`, { auth: owner.auth })).body).toEqual(created.body);
    expect((await http(on, 'GET', '/emulator/clocks', { auth: owner.auth })).body).toEqual({ results: [created.body] });

    // Another client's controls neither see nor touch it.
    expect((await http(on, 'GET', '/emulator/clocks', { auth: other.auth })).body).toEqual({ results: [] });
    expectErrorBody(await http(on, 'GET', `/emulator/clocks/${id}`, { auth: other.auth }), 404);
    expectErrorBody(await http(on, 'DELETE', `/emulator/clocks/${id}`, { auth: other.auth }), 404);
    expectErrorBody(await http(on, 'POST', `/emulator/clocks/${id}/advance`, { auth: other.auth, body: { by: 'P1D' } }), 404);
    expectErrorBody(await http(on, 'PUT', '/emulator/client/clock', { auth: other.auth, body: { clockId: id } }), 404);

    expectErrorBody(await http(on, 'GET', '/emulator/clocks/not-a-clock', { auth: owner.auth }), 400, { validation: true });
    expectErrorBody(await http(on, 'GET', `/emulator/clocks/${randomUUID()}`, { auth: owner.auth }), 404);
    expectErrorBody(await http(on, 'GET', '/emulator/clocks'), 401);
    expect((await http(on, 'DELETE', `/emulator/clocks/${id}`, { auth: owner.auth })).status).toBe(204);
    expectErrorBody(await http(on, 'GET', `/emulator/clocks/${id}`, { auth: owner.auth }), 404);
  });

  it('refuses malformed times and durations, and moving backwards, naming the field', async () => {
    const client = await on.newClient();
    for (const frozenTime of ['2027-01-01', 'yesterday', '2027-13-01T00:00:00Z', '2027-01-01T00:00:00', 42]) {
      const res = await http(on, 'POST', '/emulator/clocks', { auth: client.auth, body: { frozenTime } });
      expectErrorBody(res, 400, { validation: true });
    }
    expectErrorBody(await http(on, 'POST', '/emulator/clocks', { auth: client.auth, body: {} }), 400, { validation: true });
    const id = await createClock(on, client, T);
    const advanceBy = (body: unknown) => http(on, 'POST', `/emulator/clocks/${id}/advance`, { auth: client.auth, body });
    for (const body of [{ by: '30 days' }, { by: 'P' }, { by: 'PT' }, { by: '-P1D' }, { by: 'P1.5D' }, {}, { to: T, by: 'P1D' }]) {
      const res = await advanceBy(body);
      expectErrorBody(res, 400, { validation: true });
    }
    // At most ten years in one advance (it cannot be stopped once it runs).
    const far = await advanceBy({ by: 'P10YT1S' });
    expectErrorBody(far, 400, { validation: true });
    expect(far.body.validation.errors[0].itemId).toBe('by');
    expectErrorBody(await advanceBy({ to: '2037-01-01T00:00:00.001Z' }), 400, { validation: true });
    const back = await advanceBy({ to: '2026-12-31T23:59:59Z' });
    expectErrorBody(back, 400, { validation: true });
    expect(back.body.validation.errors[0].itemId).toBe('to');
    expect((await http(on, 'GET', `/emulator/clocks/${id}`, { auth: client.auth })).body).toMatchObject({ frozenTime: T, status: 'ready' });
    // Staying where it is, and calendar months, are fine.
    expect((await advance(on, client, id, { to: T })).frozenTime).toBe(T);
    expect((await advance(on, client, id, { by: 'P1M' })).frozenTime).toBe('2027-02-01T00:00:00.000Z');
    expect((await advance(on, client, id, { by: 'P1DT2H30M0.5S' })).frozenTime).toBe('2027-02-02T02:30:00.500Z');
    expect((await advance(on, client, id, { by: 'P10Y' })).frozenTime).toBe('2037-02-02T02:30:00.500Z');
  });

  it('puts companies and the client on clocks; a clock in use cannot be deleted', async () => {
    const client = await on.newClient();
    const clock = await createClock(on, client, T);
    const later = await createClock(on, client, '2030-06-15T12:00:00Z');

    // A company created with the header lives on the clock from its creation.
    const made = await http(on, 'POST', '/companies', {
      auth: client.auth,
      body: { name: 'On a clock' },
      headers: { 'emulator-clock': clock },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.created).toBe(T);
    expectErrorBody(
      await http(on, 'POST', '/companies', { auth: client.auth, body: { name: 'x' }, headers: { 'emulator-clock': 'nope' } }),
      400,
      {
        validation: true,
      },
    );
    expectErrorBody(
      await http(on, 'POST', '/companies', { auth: client.auth, body: { name: 'x' }, headers: { 'emulator-clock': randomUUID() } }),
      404,
    );
    expect((await http(on, 'GET', '/companies', { auth: client.auth })).body.totalResults).toBe(1);

    expectErrorBody(await http(on, 'DELETE', `/emulator/clocks/${clock}`, { auth: client.auth }), 409);

    // The client's clock governs paths without a company and companies without a clock of their own.
    const joined = await http(on, 'PUT', '/emulator/client/clock', { auth: client.auth, body: { clockId: later } });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body).toEqual({ id: later, frozenTime: '2030-06-15T12:00:00.000Z', status: 'ready' });
    const second = await http(on, 'POST', '/companies', { auth: client.auth, body: { name: 'On the client clock' } });
    expect(second.body.created).toBe('2030-06-15T12:00:00.000Z');
    // A company moved to another clock follows it.
    const moved = await http(on, 'PUT', `/emulator/companies/${second.body.id}/clock`, { auth: client.auth, body: { clockId: clock } });
    expect(moved.status, moved.text).toBe(200);
    expectErrorBody(
      await http(on, 'PUT', `/emulator/companies/${randomUUID()}/clock`, { auth: client.auth, body: { clockId: clock } }),
      404,
    );
    expectErrorBody(
      await http(on, 'PUT', `/emulator/companies/${second.body.id}/clock`, { auth: client.auth, body: { clockId: 'x' } }),
      400,
      {
        validation: true,
      },
    );
    expectErrorBody(
      await http(on, 'PUT', `/emulator/companies/${second.body.id}/clock`, { auth: client.auth, body: { clockId: randomUUID() } }),
      404,
    );
    // Another client's company is a 403, as on every path of a company (the security suite holds every one to it).
    const other = await on.newClient();
    expectErrorBody(
      await http(on, 'PUT', `/emulator/companies/${second.body.id}/clock`, { auth: other.auth, body: { clockId: clock } }),
      403,
    );

    expectErrorBody(await http(on, 'DELETE', `/emulator/clocks/${later}`, { auth: client.auth }), 409);
    expect((await http(on, 'DELETE', '/emulator/client/clock', { auth: client.auth })).status).toBe(204);
    expectErrorBody(await http(on, 'DELETE', '/emulator/client/clock', { auth: client.auth }), 404);
    expect((await http(on, 'DELETE', `/emulator/clocks/${later}`, { auth: client.auth })).status).toBe(204);

    // Deleting its companies frees a clock.
    for (const id of [made.body.id, second.body.id])
      expect((await http(on, 'DELETE', `/companies/${id}`, { auth: client.auth })).status).toBe(204);
    expect((await http(on, 'DELETE', `/emulator/clocks/${clock}`, { auth: client.auth })).status).toBe(204);
  });

  it('answers 409 to a second advance while one runs', async () => {
    const client = await on.newClient();
    const id = await createClock(on, client, T);
    const first = await http(on, 'POST', `/emulator/clocks/${id}/advance`, { auth: client.auth, body: { by: 'P1D' } });
    expect(first.status).toBe(202);
    const second = await http(on, 'POST', `/emulator/clocks/${id}/advance`, { auth: client.auth, body: { by: 'P1D' } });
    // The first may already have finished (nothing is on the clock): then the second is a new advance.
    expect([202, 409]).toContain(second.status);
    if (second.status === 409) expectErrorBody(second, 409);
    const done = await untilReady(on, client, id);
    expect(done.frozenTime).toBe(plus(T, (second.status === 202 ? 48 : 24) * HOUR));
  });
});
