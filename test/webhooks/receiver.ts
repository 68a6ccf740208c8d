import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { Webhook } from 'svix';
import { http as api, type TestClient } from '../helpers/test-server.js';

/** One request a receiver got: the raw body bytes as text, and its headers. */
export interface Received {
  body: string;
  headers: Record<string, string>;
  at: number;
}

/** What the receiver does with the n-th request (0-based): answer with a status, or never answer. */
export type Responder = (index: number, request: Received) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `count` requests arrived (the last ones are returned), or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A webhook endpoint: a plain HTTP server on 127.0.0.1 that records every request. */
export async function startReceiver(respond: Responder = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const waiting: (() => void)[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      const entry = { body: Buffer.concat(chunks).toString('utf8'), headers, at: Date.now() };
      const answer = respond(received.length, entry);
      received.push(entry);
      for (const wake of waiting.splice(0)) wake();
      if (answer === 'hang') return;
      response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiting.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received.slice(0, count);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Checks a delivery's signature twice: with Svix's public verifier, as a receiver would, and by recomputing the
 * Standard Webhooks HMAC here (base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed with the secret's bytes),
 * since the svix package itself builds on the signer's library. Returns the parsed envelope.
 */
export function verifySigned(secret: string, delivery: Received): any {
  const parsed = new Webhook(secret).verify(delivery.body, delivery.headers);
  const id = delivery.headers['webhook-id'];
  const timestamp = delivery.headers['webhook-timestamp'];
  expect(id).toMatch(/^msg_[A-Za-z0-9]{24}$/);
  expect(timestamp).toMatch(/^\d+$/);
  expect(Math.abs(Number(timestamp) - delivery.at / 1000)).toBeLessThan(30);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${delivery.body}`).digest('base64');
  expect(delivery.headers['webhook-signature']).toBe(`v1,${expected}`);
  expect(delivery.headers['content-type']).toBe('application/json');
  expect(JSON.parse(delivery.body)).toEqual(parsed);
  return parsed;
}

/** Checks the envelope of a delivered event; returns its payload. */
export function expectEnvelope(envelope: any, eventType: string): any {
  expect(Object.keys(envelope).sort()).toEqual(['eventType', 'generatedDate', 'id', 'payload']);
  expect(envelope.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(envelope.eventType).toBe(eventType);
  expect(new Date(envelope.generatedDate).toISOString()).toBe(envelope.generatedDate);
  return envelope.payload;
}

/** Creates a consumer through the API; returns it with its secret. */
export async function createConsumer(
  server: { url: string },
  client: TestClient,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const res = await api(server, 'POST', '/webhooks', { auth: client.auth, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
