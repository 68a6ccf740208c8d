import { transientRecordReader } from '../../records/record-reader.js';
import type { Store } from '../../storage/database.js';
import { AGED_DIGEST_KIND, agedInputOf } from './aged-digest.js';
import { agedDigestOf } from './aged-inputs.js';
import type { AgedReadingThreads } from './aged-reading-threads.js';

/**
 * From this many records a version's digest is made on a reading thread: below, reading its tuples here takes less
 * than starting a thread (tens of milliseconds), and a sync of a Sandbox's few hundred records should not wait for one.
 */
const THREAD_FROM = 10_000;

/**
 * The aged digests a sync keeps with each version of a report's input it writes (syncs/sync-job.ts, VersionDigests):
 * a large version's made on a reading thread, a small one's (and every one's where there are no threads: in-memory
 * SQLite) on the calling thread.
 */
export function agedVersionDigests(threads: AgedReadingThreads | undefined, store: Store, options: { threadFrom?: number } = {}) {
  return {
    async of(version: number, dataType: string, size: number): Promise<{ kind: string; bytes: Uint8Array }[]> {
      if (!agedInputOf(dataType)) return [];
      const bytes =
        threads !== undefined && size >= (options.threadFrom ?? THREAD_FROM)
          ? await threads.digest(version, dataType)
          : await agedDigestOf(transientRecordReader(store), version, dataType);
      return bytes ? [{ kind: AGED_DIGEST_KIND, bytes }] : [];
    },
  };
}
