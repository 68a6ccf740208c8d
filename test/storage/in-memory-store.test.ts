import { describe, expect, it } from 'vitest';
import { isInMemoryStore } from '../../src/storage/database.js';
import { createAgedReadingThreads } from '../../src/reports/aged/aged-reading-threads.js';

/*
 * An in-memory SQLite store cannot be opened by another thread (it would open an empty database of its own): every
 * spelling `openStore` accepts for one is known as such, so the version writers and the aged reports' reading threads
 * work on the calling thread there.
 */
describe('in-memory stores', () => {
  it('are known by every spelling, and files and Postgres are not', () => {
    for (const url of [':memory:', 'sqlite::memory:', 'sqlite://:memory:', 'file::memory:']) expect(isInMemoryStore(url), url).toBe(true);
    for (const url of ['data/ledgerport.db', 'sqlite:data/x.db', 'postgres://postgres@127.0.0.1:5432/test'])
      expect(isInMemoryStore(url), url).toBe(false);
    expect(createAgedReadingThreads('sqlite::memory:')).toBeUndefined();
  });
});
