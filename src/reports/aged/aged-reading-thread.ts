import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openRecordReader } from '../../records/record-reader.js';
import type { AgedFacts, AgedPart, AgedRole, AgedSide } from './aged-facts.js';
import { agedDigestOf, agedFactsOfVersions, inputsInOrder, partFromRecords, type AgedVersions } from './aged-inputs.js';

/*
 * A thread that reads an aged report's inputs over its own store connection (aged-reading-threads.ts). One of:
 * - `digest`: the digest of one version a sync has just written; answers `{ digest }` (bytes, or null for a data type
 *   no aged report reads);
 * - `parts`: the parts of some versions, read from their kept tuples, sent to its sibling; answers `{ sent: true }`;
 * - `facts`: the facts of every input version (digests where it has them, the sibling's parts for the versions it
 *   reads), answers `{ facts }`.
 * Or `{ error }`.
 */
type Task = { url: string } & (
  | { do: 'digest'; version: number; dataType: string }
  | { do: 'parts'; side: AgedSide; versions: AgedVersions; send: MessagePort }
  | { do: 'facts'; side: AgedSide; versions: AgedVersions; digested: number[]; fromSibling: number[]; receive?: MessagePort }
);

const task = workerData as Task;
const port = parentPort!;

/** The buffers of typed arrays, to move them to another thread instead of copying them. */
const buffersOf = (values: unknown[]) =>
  values.filter((value): value is ArrayBufferView => ArrayBuffer.isView(value)).map((view) => view.buffer as ArrayBuffer);

const partBuffers = (part: AgedPart) =>
  buffersOf([...Object.values(part.amounts), ...Object.values(part.slots), ...Object.values(part.reductions)]);

try {
  // The sibling's parts, listened for at once: a message to a port without a listener waits, but only as long as the port lives.
  const received =
    task.do === 'facts' && task.receive
      ? new Promise<Map<number, AgedPart>>((resolve) =>
          task.receive!.once('message', (parts: [number, AgedPart][]) => resolve(new Map(parts))),
        )
      : undefined;
  const { reader, close } = await openRecordReader(task.url);
  try {
    if (task.do === 'digest') {
      const digest = await agedDigestOf(reader, task.version, task.dataType);
      port.postMessage({ digest: digest ?? null }, digest ? [digest.buffer as ArrayBuffer] : []);
    } else if (task.do === 'parts') {
      const parts: [number, AgedPart][] = [];
      for (const { role, version } of inputsInOrder(task.versions))
        parts.push([version, await partFromRecords(reader, task.side, role as AgedRole, version)]);
      // Buffers shared by several arrays are listed once.
      task.send.postMessage(parts, [...new Set(parts.flatMap(([, part]) => partBuffers(part)))]);
      task.send.close();
      port.postMessage({ sent: true });
    } else {
      const facts: AgedFacts = await agedFactsOfVersions(reader, task.side, task.versions, {
        digested: new Set(task.digested),
        ...(received ? { given: { versions: new Set(task.fromSibling), parts: received } } : {}),
      });
      task.receive?.close();
      port.postMessage(
        { facts },
        buffersOf([...Object.values(facts), ...Object.values(facts.exact ?? {}), ...Object.values(facts.recordIds)]),
      );
    }
  } finally {
    await close();
  }
} catch (err) {
  port.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
