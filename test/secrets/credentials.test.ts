import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadSecretKeys, type SecretKeys } from '../../src/secrets/secret-keys.js';
import { SealedBoxError, seal, unseal } from '../../src/secrets/sealed-box.js';
import { createCredentialsStore } from '../../src/connections/credentials.store.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { companyWithConnection } from '../helpers/sandbox.js';
import { assertCliBuilt, CLI_TEST_TIMEOUT, type CliResult } from '../helpers/cli.js';

const BIN = fileURLToPath(new URL('../../bin/ledgerport', import.meta.url));
const newKey = () => randomBytes(32).toString('base64');
const keysOf = (current: string, ...previous: string[]): SecretKeys =>
  loadSecretKeys('postgres://unused', { LEDGERPORT_SECRET_KEY: current, LEDGERPORT_PREVIOUS_SECRET_KEYS: previous.join(',') });
const SECRET = { username: 'ledger-user', password: 'correct horse battery staple' };

function ledgerport(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('the secret key', () => {
  it('is generated beside an SQLite file on first start (mode 0600) and read from there after', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-key-'));
    const db = path.join(dir, 'ledgerport.sqlite');
    const first = loadSecretKeys(db, {});
    expect(first.source).toBe('generated');
    const file = path.join(dir, 'secret.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    const again = loadSecretKeys(`sqlite:${db}`, {});
    expect(again.source).toBe('file');
    expect(again.current.bytes.equals(first.current.bytes)).toBe(true);
    fs.rmSync(dir, { recursive: true });
  });

  it('is required on Postgres, and must be 32 bytes of base64', () => {
    expect(() => loadSecretKeys('postgres://postgres@127.0.0.1/test', {})).toThrow(/LEDGERPORT_SECRET_KEY is required with Postgres/);
    expect(() => keysOf('c2hvcnQ=')).toThrow(/LEDGERPORT_SECRET_KEY must be 32 bytes in base64/);
    expect(() => keysOf(newKey(), 'not base64!')).toThrow(/LEDGERPORT_PREVIOUS_SECRET_KEYS \(key 1\) must be 32 bytes/);
    expect(loadSecretKeys(':memory:', {}).source).toBe('ephemeral');
  });

  it('a server on Postgres does not start without it, and says what to set', { timeout: CLI_TEST_TIMEOUT }, async () => {
    assertCliBuilt();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', PORT: '0' };
    delete env.LEDGERPORT_SECRET_KEY;
    const result = await ledgerport(env, 'serve');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/LEDGERPORT_SECRET_KEY is required with Postgres/);
  });
});

describe('sealed values', () => {
  it('open only with the key that sealed them, for the record they were sealed for', () => {
    const keys = keysOf(newKey());
    const sealed = seal(SECRET, keys.current, 'conn-1');
    expect(sealed).not.toContain('horse');
    expect(unseal(sealed, keys, 'conn-1').value).toEqual(SECRET);
    expect(() => unseal(sealed, keys, 'conn-2')).toThrow(SealedBoxError);
    expect(() => unseal(sealed, keysOf(newKey()), 'conn-1')).toThrow(
      /neither LEDGERPORT_SECRET_KEY nor one of LEDGERPORT_PREVIOUS_SECRET_KEYS/,
    );
    const parts = sealed.split('.');
    parts[4] = Buffer.from('x'.repeat(20)).toString('base64url');
    expect(() => unseal(parts.join('.'), keys, 'conn-1')).toThrow(/does not open/);
  });
});

describe('connection credentials at rest', () => {
  let server: TestServer;
  let client: TestClient;
  const oldKey = newKey();
  const currentKey = newKey();

  beforeAll(async () => {
    server = await startTestServer();
    client = await server.newClient();
  });
  afterAll(() => server.close());

  it(
    'are stored sealed, re-sealed by `ledgerport secrets rotate`, and deleted with their connection and company',
    { timeout: CLI_TEST_TIMEOUT },
    async () => {
      assertCliBuilt();
      const { companyId, connectionId } = await companyWithConnection(server, client);
      const second = await companyWithConnection(server, client, 'bsbx', companyId);
      const old = createCredentialsStore(keysOf(oldKey));
      await server.store.db.transaction().execute(async (trx) => {
        await old.save(trx, client.clientId, { companyId, connectionId }, SECRET, new Date().toISOString());
        await old.save(
          trx,
          client.clientId,
          { companyId, connectionId: second.connectionId },
          { apiKey: 'sk_live_abc123' },
          new Date().toISOString(),
        );
      });
      const raw = await server.store.db.selectFrom('connection_credentials').selectAll().orderBy('connection_id').execute();
      expect(raw).toHaveLength(2);
      for (const row of raw) {
        expect(row.sealed).toMatch(/^v1\.[0-9a-f]{8}\./);
        expect(row.sealed).not.toMatch(/horse|ledger-user|sk_live/);
      }
      // Not on any served resource.
      const served = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth });
      expect(served.text).not.toMatch(/horse|ledger-user|sealed|credential/i);

      // Rotation: the new key current, the old one still accepted for reading.
      const env = {
        ...process.env,
        DATABASE_URL: server.databaseUrl,
        LEDGERPORT_SECRET_KEY: currentKey,
        LEDGERPORT_PREVIOUS_SECRET_KEYS: oldKey,
      };
      const rotated = await ledgerport(env, 'secrets', 'rotate');
      expect(rotated.stderr).toBe('');
      expect(JSON.parse(rotated.stdout)).toEqual({ keyId: keysOf(currentKey).current.id, resealed: 2, current: 0 });
      expect(rotated.stdout + rotated.stderr).not.toMatch(/horse|sk_live/);
      const again = await ledgerport(env, 'secrets', 'rotate');
      expect(JSON.parse(again.stdout)).toMatchObject({ resealed: 0, current: 2 });
      // Now only the current key opens them.
      expect(await createCredentialsStore(keysOf(currentKey)).load(server.store.db, client.clientId, connectionId)).toEqual(SECRET);
      await expect(old.load(server.store.db, client.clientId, connectionId)).rejects.toThrow(SealedBoxError);
      // Another client cannot load them.
      expect(await createCredentialsStore(keysOf(currentKey)).load(server.store.db, 'another-client', connectionId)).toBeNull();
      // A key that opens nothing stops the rotation, naming the connection only.
      const lost = await ledgerport({ ...env, LEDGERPORT_SECRET_KEY: newKey(), LEDGERPORT_PREVIOUS_SECRET_KEYS: '' }, 'secrets', 'rotate');
      expect(lost.code).toBe(1);
      expect(lost.stderr).toMatch(/connection [0-9a-f-]{36}: sealed with key [0-9a-f]{8}, which is neither/);

      expect((await http(server, 'DELETE', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth })).status).toBe(200);
      expect(
        (await server.store.db.selectFrom('connection_credentials').select('connection_id').execute()).map((r) => r.connection_id),
      ).toEqual([second.connectionId]);
      expect((await http(server, 'DELETE', `/companies/${companyId}`, { auth: client.auth })).status).toBe(204);
      expect(await server.store.db.selectFrom('connection_credentials').selectAll().execute()).toEqual([]);
    },
  );
});
