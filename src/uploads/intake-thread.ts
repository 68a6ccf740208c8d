import { parentPort } from 'node:worker_threads';
import { findConnector } from '../connectors/registry.js';
import { FileRefused } from '../connectors/connector-error.js';
import type { AcceptedFile, IncomingFile } from '../connectors/connector.js';

/**
 * The intake thread (see intake.ts). Messages in: `{id, read: {platformKey, files, fields, uploaded}}` reads the
 * files and keeps what was read as batch `id`; `{id, next: {batch, index}}` answers the next records chunk of a file
 * (null when there are no more); `{release: batch}` drops a batch. Messages out: `{id, accepted}`, `{id, refused}`,
 * `{id, chunk}` or `{id, error}`.
 */
const port = parentPort!;
const batches = new Map<number, { chunks: Iterator<string>[] }>();

port.on('message', (message: {
  id?: number;
  read?: { platformKey: string; files: IncomingFile[]; fields: Record<string, string>; uploaded: string };
  next?: { batch: number; index: number };
  release?: number;
}) => {
  if (message.release !== undefined) {
    batches.delete(message.release);
    return;
  }
  const id = message.id as number;
  try {
    if (message.read) {
      const { platformKey, files, fields, uploaded } = message.read;
      const connector = findConnector(platformKey);
      if (!connector?.files) {
        port.postMessage({ id, error: `platform ${platformKey} is not known here`, unknown: true });
        return;
      }
      let accepted: AcceptedFile[];
      try {
        accepted = connector.files.accept(files, fields);
      } catch (err) {
        if (err instanceof FileRefused) {
          port.postMessage({ id, refused: err.items });
          return;
        }
        throw err;
      }
      batches.set(id, { chunks: accepted.map((a) => (a.records?.(uploaded) ?? [])[Symbol.iterator]()) });
      port.postMessage({ id, accepted: accepted.map(({ records: _records, ...meta }) => meta) });
      return;
    }
    if (message.next) {
      const chunks = batches.get(message.next.batch)?.chunks[message.next.index];
      // A batch this thread does not hold (another thread read it before this one started) is an error, never "no more records".
      if (!chunks) throw new Error(`the intake thread holds no batch ${message.next.batch}`);
      const step = chunks.next();
      port.postMessage({ id, chunk: step.done ? null : step.value });
    }
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
