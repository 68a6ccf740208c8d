import { parentPort } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';
import { findConnector } from '../connectors/registry.js';
import { FileRefused } from '../connectors/connector-error.js';
import type { AcceptedFile, IncomingFile } from '../connectors/connector.js';

/**
 * The intake thread (see intake.ts). Messages in: `{id, read: {platformKey, files, fields, uploaded}}` reads the
 * files and keeps what was read as batch `id`; `{id, next: {batch, index}}` answers the next records chunk of a file
 * (null when there are no more); `{release: batch}` drops a batch. Messages out: `{id, accepted}`, `{id, refused}`,
 * `{id, chunk}` or `{id, error}`; the answer to a read hands the files' bytes back (`bytes`, moved, not copied).
 * `{recycle: true}` says the thread holds nothing and its heap grew past RECYCLE_HEAP_MB (see intake.ts).
 */
const port = parentPort!;
const batches = new Map<number, { chunks: Iterator<string>[] }>();
/** A heap this large once every read is done was grown by a large file: the thread asks to be replaced. */
const RECYCLE_HEAP_MB = 40;

port.on(
  'message',
  (message: {
    id?: number;
    read?: { platformKey: string; files: IncomingFile[]; fields: Record<string, string>; uploaded: string };
    next?: { batch: number; index: number };
    release?: number;
  }) => {
    if (message.release !== undefined) {
      batches.delete(message.release);
      offerRecycle();
      return;
    }
    const id = message.id as number;
    // The bytes the caller moved here go back with the answer to its read, whatever the answer.
    const files = message.read?.files ?? [];
    const reply = (answer: Record<string, unknown>) => {
      if (!message.read) return port.postMessage({ id, ...answer });
      const bytes = files.map((f) => f.bytes);
      port.postMessage(
        { id, ...answer, bytes },
        bytes.map((b) => b.buffer as ArrayBuffer),
      );
    };
    try {
      if (message.read) {
        const { platformKey, fields, uploaded } = message.read;
        const connector = findConnector(platformKey);
        if (!connector?.files) {
          reply({ error: `platform ${platformKey} is not known here`, unknown: true });
          return;
        }
        let accepted: AcceptedFile[];
        try {
          accepted = connector.files.accept(files, fields);
        } catch (err) {
          if (err instanceof FileRefused) {
            reply({ refused: err.items });
            return;
          }
          throw err;
        }
        batches.set(id, { chunks: accepted.map((a) => (a.records?.(uploaded) ?? [])[Symbol.iterator]()) });
        reply({ accepted: accepted.map(({ records: _records, ...meta }) => meta) });
        return;
      }
      if (message.next) {
        const chunks = batches.get(message.next.batch)?.chunks[message.next.index];
        // A batch this thread does not hold (another thread read it before this one started) is an error, never "no more records".
        if (!chunks) throw new Error(`the intake thread holds no batch ${message.next.batch}`);
        const step = chunks.next();
        reply({ chunk: step.done ? null : step.value });
      }
    } catch (err) {
      reply({ error: err instanceof Error ? err.message : String(err) });
    } finally {
      // A large file refused (or failing) leaves a grown heap too.
      if (message.read && !batches.has(id)) offerRecycle();
    }
  },
);

/** Asks to be replaced when it holds nothing and its heap grew past RECYCLE_HEAP_MB. */
function offerRecycle(): void {
  if (batches.size === 0 && getHeapStatistics().total_heap_size > RECYCLE_HEAP_MB * 2 ** 20) port.postMessage({ recycle: true });
}
