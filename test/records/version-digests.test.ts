import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, storeKind, type TestStore } from '../helpers/test-store.js';
import { digestedVersions, readVersionDigest, saveVersionDigest } from '../../src/records/version-digests.js';
import { deleteVersion } from '../../src/records/version-deletion.js';
import { TAKEN_OVER } from '../../src/records/record-sink.js';

/*
 * What reports keep with a version (src/records/version-digests.ts): stored in pieces of a megabyte, read back whole
 * (on Postgres by COPY in binary, parsed as it streams), replaced whole, written only while the sync's run holds its
 * operation, and deleted with the version. Both stores.
 */

let test: TestStore;
beforeAll(async () => {
  test = await createTestStore();
});
afterAll(() => test?.destroy());

const joined = (pieces: Uint8Array[]) =>
  Buffer.concat(pieces.map((piece) => Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)));

describe(`version digests (${storeKind})`, () => {
  it('reads back exactly what was stored, from one byte to several pieces', async () => {
    for (const [version, size] of [
      [101, 1],
      [102, 1024 * 1024],
      [103, 2.5 * 1024 * 1024 + 7],
    ] as const) {
      const bytes = randomBytes(size);
      await saveVersionDigest(test.store, version, 'aged', bytes);
      const back = await readVersionDigest(test.store, version, 'aged');
      expect(back).toBeDefined();
      expect(joined(back!).equals(bytes)).toBe(true);
    }
    const pieces = await test.store.db.selectFrom('version_digests').select('chunk').where('version', '=', 103).execute();
    expect(pieces.length).toBe(3);
    expect(await digestedVersions(test.store.db, [101, 102, 103, 104], 'aged')).toEqual(new Set([101, 102, 103]));
    expect(await digestedVersions(test.store.db, [101], 'other')).toEqual(new Set());
    expect(await readVersionDigest(test.store, 104, 'aged')).toBeUndefined();
  });

  it('replaces a digest whole, and reads one with a piece missing as none', async () => {
    await saveVersionDigest(test.store, 110, 'aged', randomBytes(3 * 1024 * 1024));
    const smaller = randomBytes(10);
    await saveVersionDigest(test.store, 110, 'aged', smaller);
    expect(joined((await readVersionDigest(test.store, 110, 'aged'))!).equals(smaller)).toBe(true);
    await saveVersionDigest(test.store, 111, 'aged', randomBytes(3 * 1024 * 1024));
    await test.store.db.deleteFrom('version_digests').where('version', '=', 111).where('chunk', '=', 1).execute();
    expect(await readVersionDigest(test.store, 111, 'aged')).toBeUndefined();
  });

  it('writes nothing for a run that does not hold its sync', async () => {
    const fence = { pullOperationId: randomUUID(), runner: randomUUID() };
    await expect(saveVersionDigest(test.store, 120, 'aged', randomBytes(100), fence)).rejects.toThrow(TAKEN_OVER);
    expect(await readVersionDigest(test.store, 120, 'aged')).toBeUndefined();
  });

  it('goes with its version', async () => {
    await saveVersionDigest(test.store, 130, 'aged', randomBytes(2 * 1024 * 1024));
    await saveVersionDigest(test.store, 131, 'aged', randomBytes(10));
    await deleteVersion(test.store, 130, async () => {});
    expect(await readVersionDigest(test.store, 130, 'aged')).toBeUndefined();
    expect(await readVersionDigest(test.store, 131, 'aged')).toBeDefined();
  });
});
