import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { isPostgresUrl, sqliteFilePath } from '../storage/database.js';

/** A 256-bit key and a short id derived from it, stored beside what it seals so the right key is picked to open it. */
export interface SecretKey {
  id: string;
  bytes: Buffer;
}

/** The key that seals, and the older ones still tried when opening (LEDGERPORT_PREVIOUS_SECRET_KEYS). */
export interface SecretKeys {
  current: SecretKey;
  previous: SecretKey[];
  /** Where the current key came from, for the start-up log line (never the key itself). */
  source: 'environment' | 'file' | 'generated' | 'ephemeral';
}

export const SECRET_KEY_FILE = 'secret.key';

/**
 * The keys that encrypt connection credentials at rest:
 * - `LEDGERPORT_SECRET_KEY`: 32 random bytes in base64 (`openssl rand -base64 32`);
 * - unset on SQLite: read from `secret.key` beside the database file, generated there on first start (mode 0600);
 *   an in-memory database gets a key for the life of the process;
 * - unset on Postgres: an error, since several processes on several machines must share one key;
 * - `LEDGERPORT_PREVIOUS_SECRET_KEYS`: comma-separated older keys, tried when opening (see `ledgerport secrets rotate`).
 */
export function loadSecretKeys(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): SecretKeys {
  const previous = (env.LEDGERPORT_PREVIOUS_SECRET_KEYS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s, i) => parseKey(s, `LEDGERPORT_PREVIOUS_SECRET_KEYS (key ${i + 1})`));
  const configured = env.LEDGERPORT_SECRET_KEY?.trim();
  if (configured) return { current: parseKey(configured, 'LEDGERPORT_SECRET_KEY'), previous, source: 'environment' };
  if (isPostgresUrl(databaseUrl)) {
    throw new Error(
      'LEDGERPORT_SECRET_KEY is required with Postgres: set it to 32 random bytes in base64 (e.g. `openssl rand -base64 32`), ' +
        'the same value in every process (see docs/deploy.md).',
    );
  }
  const file = sqliteFilePath(databaseUrl);
  if (file === ':memory:') return { current: keyOf(randomBytes(32)), previous, source: 'ephemeral' };
  const keyFile = path.join(path.dirname(path.resolve(file)), SECRET_KEY_FILE);
  try {
    // 'wx': only the first process to start creates it; a concurrent start reads the winner's key below.
    fs.writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    return { current: parseKey(fs.readFileSync(keyFile, 'utf8').trim(), keyFile), previous, source: 'generated' };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return { current: parseKey(fs.readFileSync(keyFile, 'utf8').trim(), keyFile), previous, source: 'file' };
}

function parseKey(text: string, where: string): SecretKey {
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32) throw new Error(`${where} must be 32 bytes in base64 (44 characters, e.g. from \`openssl rand -base64 32\`)`);
  return keyOf(bytes);
}

function keyOf(bytes: Buffer): SecretKey {
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), bytes };
}
