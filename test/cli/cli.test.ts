import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, http, startTestServer, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertCliBuilt, CLI_TEST_TIMEOUT, runLedgerport, runLedgerportWithoutStore, type CliResult } from '../helpers/cli.js';

const DAY_MS = 86_400_000;

let server: TestServer;

beforeAll(async () => {
  assertCliBuilt();
  server = await startTestServer();
});
afterAll(() => server.close());

const ledgerport = (...args: string[]) => runLedgerport(server.databaseUrl, ...args);

/** Asserts the command succeeded and printed exactly one JSON line; returns it parsed. */
function oneJsonLine(res: CliResult): Record<string, unknown> {
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout.endsWith('\n')).toBe(true);
  const lines = res.stdout.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

async function clientCount(): Promise<number> {
  return (await server.store.db.selectFrom('clients').select('id').execute()).length;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const API_KEY = /^[A-Za-z0-9]{40}$/;

describe('ledgerport clients create', () => {
  it(
    'prints exactly {"clientId","apiKey"} and the key works over HTTP (free trial by default)',
    async () => {
      const out = oneJsonLine(await ledgerport('clients', 'create', '--name', 'CLI Client'));
      expect(Object.keys(out).sort()).toEqual(['apiKey', 'clientId']);
      expect(out.clientId).toMatch(GUID);
      expect(out.apiKey).toMatch(API_KEY);

      const res = await http(server, 'GET', '/companies', { auth: basicAuth(out.apiKey as string) });
      expect(res.status, res.text).toBe(200);
      expect(res.body.totalResults).toBe(0);
      // The default plan is the free trial, whose daily quota shows in the headers.
      expect(res.headers.get('x-rate-limit-limit')).toBe('1000');

      const profile = await http(server, 'GET', '/profile', { auth: basicAuth(out.apiKey as string) });
      expect(profile.body.name).toBe('CLI Client');

      // Only the key's hash is stored.
      const row = await server.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('client_id', '=', out.clientId as string)
        .executeTakeFirstOrThrow();
      expect(Object.values(row).join(' ')).not.toContain(out.apiKey as string);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'creates a standard client with --plan standard',
    async () => {
      const out = oneJsonLine(await ledgerport('clients', 'create', '--name', 'Standard CLI', '--plan', 'standard'));
      const res = await http(server, 'GET', '/companies', { auth: basicAuth(out.apiKey as string) });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-rate-limit-limit')).toBeNull();
      const stored = await server.store.db
        .selectFrom('clients')
        .selectAll()
        .where('id', '=', out.clientId as string)
        .executeTakeFirstOrThrow();
      expect(stored.plan).toBe('standard');
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'backdates a client with --created-at: a free trial 400 days old answers 402, a standard one does not',
    async () => {
      const createdAt = new Date(Date.now() - 400 * DAY_MS).toISOString();
      const trial = oneJsonLine(
        await ledgerport('clients', 'create', '--name', 'Old trial', '--plan', 'free-trial', '--created-at', createdAt),
      );
      const expired = await http(server, 'GET', '/companies', { auth: basicAuth(trial.apiKey as string) });
      const body = expectErrorBody(expired, 402, { error: 'Payment Required', validation: true });
      expect(body.validation.errors[0].message).toMatch(/^Account expired\./);

      const standard = oneJsonLine(
        await ledgerport('clients', 'create', '--name', 'Old standard', '--plan', 'standard', '--created-at', createdAt),
      );
      expect((await http(server, 'GET', '/companies', { auth: basicAuth(standard.apiKey as string) })).status).toBe(200);

      const stored = await server.store.db
        .selectFrom('clients')
        .select('created_at')
        .where('id', '=', trial.clientId as string)
        .executeTakeFirstOrThrow();
      expect(stored.created_at).toBe(createdAt);
    },
    CLI_TEST_TIMEOUT,
  );
});

describe('ledgerport clients list', () => {
  it(
    'prints every client, one JSON object a line',
    async () => {
      const created = oneJsonLine(await ledgerport('clients', 'create', '--name', 'Listed client', '--plan', 'standard'));
      const viaServer = await server.newClient({ name: 'Made by the server', plan: 'free-trial' });

      const res = await ledgerport('clients', 'list');
      expect(res.code, res.stderr).toBe(0);
      const lines = res.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
      expect(lines).toHaveLength(await clientCount());
      expect(lines).toContainEqual(
        expect.objectContaining({
          clientId: created.clientId,
          name: 'Listed client',
          plan: 'standard',
          dailyQuota: null,
          burstLimit: null,
        }),
      );
      expect(lines).toContainEqual(
        expect.objectContaining({ clientId: viaServer.clientId, name: 'Made by the server', plan: 'free-trial' }),
      );
      for (const line of lines) {
        expect(Date.parse(line.createdAt)).not.toBeNaN();
        expect(JSON.stringify(line)).not.toMatch(/apiKey|key_hash|keyHash/);
      }
    },
    CLI_TEST_TIMEOUT,
  );
});

describe('ledgerport keys create', () => {
  it(
    'prints exactly {"id","apiKey"}; the key works and is listed under that id',
    async () => {
      const client = await server.newClient();
      const out = oneJsonLine(await ledgerport('keys', 'create', '--client', client.clientId));
      expect(Object.keys(out).sort()).toEqual(['apiKey', 'id']);
      expect(out.id).toMatch(GUID);
      expect(out.apiKey).toMatch(API_KEY);

      const res = await http(server, 'GET', '/apiKeys', { auth: basicAuth(out.apiKey as string) });
      expect(res.status, res.text).toBe(200);
      expect(res.body.results.map((k: { id: string }) => k.id)).toContain(out.id);
      // The client's first key still works too.
      expect((await http(server, 'GET', '/apiKeys', { auth: client.auth })).status).toBe(200);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'honours --expires-at: a future expiry works, a past one answers 403',
    async () => {
      const client = await server.newClient();
      const future = new Date(Date.now() + 30 * DAY_MS).toISOString();
      const current = oneJsonLine(await ledgerport('keys', 'create', '--client', client.clientId, '--expires-at', future));
      const ok = await http(server, 'GET', '/apiKeys', { auth: basicAuth(current.apiKey as string) });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.results.find((k: { id: string }) => k.id === current.id)).toMatchObject({ expiresAt: future });

      const past = new Date(Date.now() - DAY_MS).toISOString();
      const outdated = oneJsonLine(await ledgerport('keys', 'create', '--client', client.clientId, '--expires-at', past));
      const res = await http(server, 'GET', '/companies', { auth: basicAuth(outdated.apiKey as string) });
      expectErrorBody(res, 403);
    },
    CLI_TEST_TIMEOUT,
  );
});

describe('bad arguments', () => {
  /** A failed command: non-zero exit, a message on stderr, nothing on stdout. */
  function expectFailure(res: CliResult, message: RegExp): void {
    expect(res.code, res.stderr).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  }

  it(
    'rejects each with a clear message on stderr and a non-zero exit, changing nothing',
    async () => {
      const client = await server.newClient();
      const before = await clientCount();
      const keysBefore = (await server.store.db.selectFrom('api_keys').select('id').execute()).length;

      const cases: Array<[string[], RegExp]> = [
        [['frobnicate'], /unknown command 'frobnicate'/],
        [['clients', 'create'], /required option '--name <name>' not specified/],
        [['clients', 'create', '--name', '   '], /--name must not be empty/],
        [['clients', 'create', '--name', 'X', '--plan', 'gold'], /argument 'gold' is invalid.*free-trial, standard/],
        [['clients', 'create', '--name', 'X', '--created-at', 'yesterday'], /'yesterday' is invalid.*ISO-8601/],
        [['clients', 'create', '--name', 'X', '--created-at', '2026-13-45'], /is invalid.*ISO-8601/],
        [['keys', 'create', '--client', randomUUID()], /no client with id/],
        [['keys', 'create', '--client', client.clientId, '--expires-at', 'soon'], /'soon' is invalid.*ISO-8601/],
        [['keys', 'create'], /required option '--client <id>' not specified/],
        [['maintenance', 'maybe'], /state must be "on" or "off"/],
        [['maintenance'], /missing required argument 'state'/],
      ];
      const results = await Promise.all(cases.map(([args]) => ledgerport(...args)));
      results.forEach((res, i) => {
        const [args, message] = cases[i];
        expect(res.code, `${args.join(' ')}: ${res.stderr}`).not.toBe(0);
        expectFailure(res, message);
      });

      expect(await clientCount()).toBe(before);
      expect((await server.store.db.selectFrom('api_keys').select('id').execute()).length).toBe(keysBefore);
      // maintenance was not turned on by the bad commands.
      expect((await http(server, 'GET', '/companies', { auth: client.auth })).status).toBe(200);
    },
    CLI_TEST_TIMEOUT,
  );
});

describe('a command run where there is no store', () => {
  it(
    'refuses, naming DATABASE_URL, and creates nothing (every command but serve)',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-nostore-'));
      try {
        for (const args of [
          ['clients', 'list'],
          ['clients', 'create', '--name', 'X'],
          ['keys', 'create', '--client', 'x'],
          ['maintenance', 'on'],
          ['secrets', 'rotate'],
        ]) {
          const res = await runLedgerportWithoutStore(dir, ...args);
          expect(res.code, args.join(' ')).not.toBe(0);
          expect(res.stdout, args.join(' ')).toBe('');
          expect(res.stderr, args.join(' ')).toMatch(
            /^ledgerport: no store at .*data.ledgerport\.sqlite .*set DATABASE_URL to the store the server uses/,
          );
        }
        expect(fs.readdirSync(dir)).toEqual([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    5 * CLI_TEST_TIMEOUT,
  );
});
