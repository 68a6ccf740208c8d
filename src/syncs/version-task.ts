import type { Store } from '../storage/database.js';
import type { ReadMode, TokenSource, WrittenRecord } from '../connectors/connector.js';
import type { DataType } from '../codat-model/data-types.js';
import { findConnector } from '../connectors/registry.js';
import { KEPT_FIELDS, recordFieldPaths } from '../records/record-fields.js';
import { writeVersion } from '../records/data-set-writer.js';
import { writeStagedVersion } from '../records/staged-writer.js';
import type { WriteFence } from '../records/record-sink.js';
import { uploadsReader } from '../platform-data/uploads.store.js';

/** Everything needed to write one version of a data set from its platform: plain data, so it can cross threads. */
export interface VersionTask {
  version: number;
  previousVersion: number | null;
  platformKey: string;
  dataType: DataType;
  /** The connection's settings (the platform's own shape). */
  settings: Record<string, unknown>;
  /** The connection's credentials, decrypted for this sync only; null for a platform without any. */
  credentials: Record<string, unknown> | null;
  epoch: number;
  /** The cursor of the previous version; null reads in full. */
  cursor: string | null;
  /** Records written to the platform through the service, ascending by id (see src/platform-data/kept-data.ts). */
  written: WrittenRecord[];
  /** Platforms on loopback, private and link-local addresses allowed. */
  allowPrivate: boolean;
  clientId: string;
  connectionId: string;
  /** A platform whose data is uploads: the connection's uploads up to this `seq` are read (null: none). */
  uploadsUpTo: number | null;
  /** The sync's time. */
  now: string;
  /** The run of the sync job writing it. */
  fence?: WriteFence;
}

export interface VersionResult {
  /** Records in the new version. */
  count: number;
  /** Records new, changed or newly deleted. */
  modified: number;
  /** Whether every document is the version's own, in position order (see record-reader.ts). */
  dense: boolean;
  /** How the platform was read. */
  mode: ReadMode;
  /** The cursor for the next sync. */
  cursor: string | null;
  /** What the connector said of the data that did not stop the read. */
  warnings: string[];
}

/**
 * Reads the platform and writes what it answers as the new version (on whichever thread calls it): a full
 * snapshot in id order streams straight into place; records in any other order, and changes since the cursor,
 * are staged and merged with the previous version.
 */
export async function runVersionTask(
  store: Store,
  task: VersionTask,
  onBatch: (written: number) => Promise<void>,
  tokens?: TokenSource,
): Promise<VersionResult> {
  const source = findConnector(task.platformKey)?.dataTypes.get(task.dataType);
  if (!source) throw new Error(`Datatype ${task.dataType} not supported by platform(s) ${task.platformKey}`);
  const controller = new AbortController();
  try {
    const read = await source.read({
      settings: task.settings,
      credentials: task.credentials,
      epoch: task.epoch,
      cursor: task.cursor,
      written: task.written,
      allowPrivate: task.allowPrivate,
      signal: controller.signal,
      ...(tokens ? { tokens } : {}),
      ...(task.uploadsUpTo !== null ? { uploads: uploadsReader(store.db, task.clientId, task.connectionId, task.uploadsUpTo) } : {}),
    });
    if (read.mode === 'delta' && (task.cursor === null || task.previousVersion === null)) {
      throw new Error(`the ${task.platformKey} connector answered a read without a cursor with changes only`);
    }
    const stats = { modified: 0 };
    const common = {
      store,
      version: task.version,
      previousVersion: task.previousVersion,
      pages: read.pages,
      now: task.now,
      fields: { ...recordFieldPaths(source.schema), kept: KEPT_FIELDS[task.dataType] },
      onBatch,
      stats,
      fence: task.fence,
    };
    const dense = read.mode === 'full' && read.ordered;
    const count = dense ? await writeVersion(common) : await writeStagedVersion({ ...common, mode: read.mode });
    return { count, modified: stats.modified, dense, mode: read.mode, cursor: read.nextCursor(), warnings: [...(read.warnings?.() ?? [])] };
  } finally {
    // Whatever ended the write, a connector still waiting on the network gives up.
    controller.abort();
  }
}
