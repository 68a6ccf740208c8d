import type { Store } from '../storage/database.js';
import type { ConnectionSettings } from '../connectors/connector.js';
import type { DataType } from '../connectors/data-types.js';
import { findConnector } from '../connectors/registry.js';
import { mergeWritten, type WrittenRecord } from '../connectors/sandbox/written-records.js';
import { recordFieldPaths } from '../data/record-fields.js';
import { writeVersion } from './data-set-writer.js';
import type { WriteFence } from './record-sink.js';

/** Everything needed to write one version of a data set from its platform: plain data, so it can cross threads. */
export interface VersionTask {
  version: number;
  previousVersion: number | null;
  platformKey: string;
  dataType: DataType;
  settings: ConnectionSettings;
  epoch: number;
  /** Records written to the platform through the service, ascending by id (see platform-writes.ts). */
  written: WrittenRecord[];
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
}

/** Fetches the platform's records and writes them as the new version (on whichever thread calls it). */
export async function runVersionTask(store: Store, task: VersionTask, onBatch: (written: number) => Promise<void>): Promise<VersionResult> {
  const source = findConnector(task.platformKey)?.dataTypes.get(task.dataType);
  if (!source) throw new Error(`Datatype ${task.dataType} not supported by platform(s) ${task.platformKey}`);
  const stats = { modified: 0 };
  const count = await writeVersion({
    store,
    version: task.version,
    previousVersion: task.previousVersion,
    source: mergeWritten(source.fetch({ settings: task.settings, epoch: task.epoch }), task.written),
    now: task.now,
    fields: recordFieldPaths(source.schema),
    onBatch,
    stats,
    fence: task.fence,
  });
  return { count, modified: stats.modified };
}
