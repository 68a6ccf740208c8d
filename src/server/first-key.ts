import fs from 'node:fs';
import path from 'node:path';
import { isPostgresUrl, sqliteFilePath } from '../storage/database.js';

/** What a first start created: the client and its one API key, shown once. */
export interface FirstKey {
  clientName: string;
  clientId: string;
  apiKey: string;
}

const FIRST_KEY_FILE = 'first-key.txt';

/** Where the first key is written when no terminal shows it: beside the SQLite file, or in the working directory. */
export function firstKeyPath(databaseUrl: string): string {
  return path.resolve(isPostgresUrl(databaseUrl) ? process.cwd() : path.dirname(sqliteFilePath(databaseUrl)), FIRST_KEY_FILE);
}

/** The key, where to send it, and a curl line that works as pasted. */
export function firstKeyText(first: FirstKey, url: string): string {
  const header = `Basic ${Buffer.from(first.apiKey).toString('base64')}`;
  return (
    `First start: created client "${first.clientName}" (${first.clientId}).\n` +
    `Its API key, shown only this once:\n\n  ${first.apiKey}\n\n` +
    `Try it:\n\n  curl -H "Authorization: ${header}" ${url}/companies\n\n` +
    `Or sign in to the portal with it: ${url}/portal\n`
  );
}

/**
 * Writes the first key to a new file only its owner may read: a log collector, a pipe or systemd's journal keeps what
 * the process prints, and a key must not sit among log lines. A file already there (an earlier store's) is removed
 * first and the new one created exclusively with mode 0600, so the key is never readable through an older file's
 * mode, an open handle or a symlink planted in its place.
 */
export function writeFirstKey(file: string, text: string): void {
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
}
