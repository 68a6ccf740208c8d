import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../storage/database.js';
import { runVersionTask, type VersionTask } from './version-task.js';
import { isConnectorError } from '../connectors/connector-error.js';

/**
 * A sync's writing thread: generates (fetches) a data set's records and writes the new version over its own
 * store connection, so the thread that answers HTTP requests stays free while a million records are written.
 * Messages in: `{ id, task }` to start, `{ id, abort: true }` to stop at the next batch.
 * Messages out: `{ id, written }` after each batch, then `{ id, result }` or `{ id, error }`.
 */
const store = await openStore((workerData as { url: string }).url, { poolSize: 2, mmapBytes: 0 });
const aborted = new Set<number>();
const port = parentPort!;

port.on('message', (message: { id: number; task?: VersionTask; abort?: boolean }) => {
  if (message.abort) {
    aborted.add(message.id);
    return;
  }
  const { id, task } = message;
  if (!task) return;
  runVersionTask(store, task, async (written) => {
    if (aborted.has(id)) throw new Error('the sync was stopped');
    port.postMessage({ id, written });
  })
    .then((result) => port.postMessage({ id, result }))
    // A connector's error keeps its kind across the thread boundary (the sync job acts on it).
    .catch((err: unknown) =>
      port.postMessage({
        id,
        error: err instanceof Error ? err.message : String(err),
        kind: isConnectorError(err) ? err.kind : undefined,
        retryAfterMs: isConnectorError(err) ? err.retryAfterMs : undefined,
      }),
    )
    .finally(() => aborted.delete(id));
});
port.postMessage({ ready: true });
