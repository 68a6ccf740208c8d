import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestServer } from '../helpers/test-server.js';
import { choosePlatform, submitForm } from '../link/link-helpers.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned, type Receiver } from './receiver.js';

let server: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => server.close());

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Every event of `eventType` a receiver got, verified and unwrapped. */
function eventsOf(r: Receiver, secret: string, eventType: string): any[] {
  return r.received.map((d) => verifySigned(secret, d)).filter((e) => e.eventType === eventType);
}

async function deliveries(consumerId: string) {
  return server.store.db.selectFrom('webhook_deliveries').selectAll().where('consumer_id', '=', consumerId).execute();
}

/** Waits until every delivery to the consumer has left `pending`. */
async function settled(consumerId: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await deliveries(consumerId)).some((d) => d.status === 'pending')) {
    if (Date.now() > deadline) throw new Error('deliveries still pending');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ALL_PLATFORM_EVENTS = [
  'company.created',
  'company.deleted',
  'connection.created',
  'connection.connected',
  'connection.disconnected',
  'connection.deleted',
];

describe('company and connection events', () => {
  it('delivers each with the envelope, its payload and a valid signature', async () => {
    const client = await server.newClient();
    const r = await receiver();
    const consumer = await createConsumer(server, client, { url: r.url, eventTypes: ALL_PLATFORM_EVENTS });

    const company = (
      await http(server, 'POST', '/companies', {
        auth: client.auth,
        body: { name: 'Hooked Ltd', description: 'd', tags: { region: 'uk' } },
      })
    ).body;
    const [created] = await r.waitFor(1);
    const createdPayload = expectEnvelope(verifySigned(consumer.secret, created), 'company.created');
    const { dataConnections, ...details } = company;
    expect(dataConnections).toEqual([]);
    expect(createdPayload).toEqual(details);
    expect(createdPayload).not.toHaveProperty('dataConnections');
    expect(created.headers['webhook-id']).toBe((await deliveries(consumer.id))[0].id);

    const connection = (
      await http(server, 'POST', `/companies/${company.id}/connections`, { auth: client.auth, body: { platformKey: 'mqjo' } })
    ).body;
    await r.waitFor(2);
    const reference = {
      id: company.id,
      name: 'Hooked Ltd',
      description: 'd',
      links: { portal: `${server.url}/portal/companies/${company.id}` },
      tags: { region: 'uk' },
    };
    // A person follows the link in a browser: the portal asks them to sign in, then shows the company.
    const followed = await fetch(reference.links.portal, { redirect: 'manual' });
    expect(followed.status).toBe(303);
    expect(followed.headers.get('location')).toBe(`/portal/sign-in?next=${encodeURIComponent(`/portal/companies/${company.id}`)}`);
    expect(expectEnvelope(eventsOf(r, consumer.secret, 'connection.created')[0], 'connection.created')).toEqual({
      referenceCompany: reference,
      connection,
    });

    const base = `/companies/${company.id}/connections/${connection.id}`;
    const linked = (await http(server, 'PUT', `${base}/authorization`, { auth: client.auth, body: { size: 'small' } })).body;
    await r.waitFor(3);
    const connected = expectEnvelope(eventsOf(r, consumer.secret, 'connection.connected')[0], 'connection.connected');
    expect(connected).toEqual({ referenceCompany: reference, connection: linked });
    expect(connected.connection.status).toBe('Linked');
    // Let the first-link syncs finish: each one completing stamps the connection's lastSync, which would race
    // the comparisons below.
    await waitForSyncs(server, client, company.id);

    const unlinked = (await http(server, 'PATCH', base, { auth: client.auth, body: { status: 'Unlinked' } })).body;
    await r.waitFor(4);
    expect(expectEnvelope(eventsOf(r, consumer.secret, 'connection.disconnected')[0], 'connection.disconnected')).toEqual({
      referenceCompany: reference,
      connection: unlinked,
    });
    expect(unlinked.status).toBe('Unlinked');

    const current = (await http(server, 'GET', base, { auth: client.auth })).body;
    expect((await http(server, 'DELETE', base, { auth: client.auth })).status).toBe(200);
    await r.waitFor(5);
    expect(expectEnvelope(eventsOf(r, consumer.secret, 'connection.deleted')[0], 'connection.deleted')).toEqual({
      referenceCompany: reference,
      connection: current,
    });

    const beforeDelete = (await http(server, 'GET', `/companies/${company.id}`, { auth: client.auth })).body;
    expect((await http(server, 'DELETE', `/companies/${company.id}`, { auth: client.auth })).status).toBe(204);
    await r.waitFor(6);
    const { dataConnections: _gone, ...deletedDetails } = beforeDelete;
    expect(expectEnvelope(eventsOf(r, consumer.secret, 'company.deleted')[0], 'company.deleted')).toEqual(deletedDetails);

    // One delivery per event, each with its own webhook-id, all delivered.
    const ids = r.received.map((d) => d.headers['webhook-id']);
    expect(new Set(ids).size).toBe(6);
    await settled(consumer.id);
    const rows = await deliveries(consumer.id);
    expect(rows.map((d) => [d.status, Number(d.attempts), d.last_response_status])).toEqual(Array(6).fill(['delivered', 1, 200]));
    expect(r.received.map((d) => JSON.parse(d.body).eventType)).toEqual(
      ALL_PLATFORM_EVENTS.slice(0, 1).concat([
        'connection.created',
        'connection.connected',
        'connection.disconnected',
        'connection.deleted',
        'company.deleted',
      ]),
    );
  });

  it('delivers connection.created and connection.connected for a connection made on the hosted Link page', async () => {
    const client = await server.newClient();
    const r = await receiver();
    const consumer = await createConsumer(server, client, { url: r.url, eventTypes: ['connection.created', 'connection.connected'] });
    const company = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Linked via page' } })).body;

    const { startUrl, connectionId } = await choosePlatform(server, company.id, 'mqjo');
    const [created] = await r.waitFor(1);
    const createdPayload = expectEnvelope(verifySigned(consumer.secret, created), 'connection.created');
    expect(createdPayload.connection).toMatchObject({ id: connectionId, status: 'PendingAuth', integrationKey: 'mqjo' });
    expect(createdPayload.referenceCompany).toMatchObject({ id: company.id, name: 'Linked via page' });

    expect((await submitForm(startUrl, { action: 'connect', size: 'small' })).status).toBe(303);
    const [, connected] = await r.waitFor(2);
    const payload = expectEnvelope(verifySigned(consumer.secret, connected), 'connection.connected');
    expect(payload.connection).toMatchObject({ id: connectionId, status: 'Linked' });
  });
});

describe('filtering', () => {
  it('sends only the event types a consumer subscribed to', async () => {
    const client = await server.newClient();
    const created = await receiver();
    const deleted = await receiver();
    const a = await createConsumer(server, client, { url: created.url, eventTypes: ['company.created'] });
    const b = await createConsumer(server, client, { url: deleted.url, eventTypes: ['company.deleted'] });
    const company = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Filtered' } })).body;
    await http(server, 'DELETE', `/companies/${company.id}`, { auth: client.auth });
    await created.waitFor(1);
    await deleted.waitFor(1);
    await settled(a.id);
    await settled(b.id);
    expect(created.received.map((d) => verifySigned(a.secret, d).eventType)).toEqual(['company.created']);
    expect(deleted.received.map((d) => verifySigned(b.secret, d).eventType)).toEqual(['company.deleted']);
  });

  it("sends a company's events only to consumers whose tags it holds (or without tags); none to disabled ones", async () => {
    const client = await server.newClient();
    const [uk, any, us, off] = [await receiver(), await receiver(), await receiver(), await receiver()];
    const ukConsumer = await createConsumer(server, client, {
      url: uk.url,
      eventTypes: ['company.created', 'company.deleted'],
      companyTags: ['region:us', 'region:uk'],
    });
    const anyConsumer = await createConsumer(server, client, {
      url: any.url,
      eventTypes: ['company.created', 'company.deleted'],
      companyTags: [],
    });
    const usConsumer = await createConsumer(server, client, {
      url: us.url,
      eventTypes: ['company.created', 'company.deleted'],
      companyTags: ['region:us', 'Region:uk'],
    });
    await createConsumer(server, client, { url: off.url, eventTypes: ['company.created'], disabled: true });

    const tagged = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'UK', tags: { region: 'uk' } } })).body;
    const untagged = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'None' } })).body;
    // The tags of a deleted company still decide where its company.deleted goes.
    await http(server, 'DELETE', `/companies/${tagged.id}`, { auth: client.auth });
    await any.waitFor(3);
    await uk.waitFor(2);
    for (const c of [ukConsumer, anyConsumer, usConsumer]) await settled(c.id);

    // Deliveries run concurrently, so their arrival order is not fixed.
    const got = (r: Receiver, secret: string) =>
      r.received
        .map((d) => verifySigned(secret, d))
        .map((e) => `${e.eventType} ${e.payload.id}`)
        .sort();
    expect(got(uk, ukConsumer.secret)).toEqual([`company.created ${tagged.id}`, `company.deleted ${tagged.id}`]);
    expect(got(any, anyConsumer.secret)).toEqual(
      [`company.created ${tagged.id}`, `company.created ${untagged.id}`, `company.deleted ${tagged.id}`].sort(),
    );
    expect(us.received).toEqual([]);
    expect(off.received).toEqual([]);
  });

  it("records nothing for another client's consumers", async () => {
    const owner = await server.newClient();
    const other = await server.newClient();
    const r = await receiver();
    const consumer = await createConsumer(server, other, { url: r.url, eventTypes: ['company.created'] });
    await http(server, 'POST', '/companies', { auth: owner.auth, body: { name: 'Not yours' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received).toEqual([]);
    expect(await deliveries(consumer.id)).toEqual([]);
  });
});
