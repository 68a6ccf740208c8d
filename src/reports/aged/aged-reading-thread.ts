import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openRecordReader } from '../../records/record-reader.js';
import { KEPT_FIELDS } from '../../records/record-fields.js';
import { AGED_INPUTS, agedFactsBuilder, type AgedFacts, type AgedPart, type AgedRole } from './aged-facts.js';

/*
 * A thread that reads some inputs of an aged report over its own store connection (aged-reading-threads.ts): either
 * it hands what it read to its sibling (`send`) and ends, or it takes in what its sibling read (`receive`), makes the
 * report's facts and hands them to the thread that asked. One message out to the parent: `{ facts }`, `{ sent: true }`
 * or `{ error }`.
 */
interface Task {
  url: string;
  side: 'debtors' | 'creditors';
  versions: Partial<Record<AgedRole, number[]>>;
  send?: MessagePort;
  receive?: MessagePort;
}

const METHOD = { counterparties: 'counterparty', documents: 'document', credits: 'credit', payments: 'payment' } as const;
const task = workerData as Task;
const port = parentPort!;

/** The buffers of typed arrays, to move them to another thread instead of copying them. */
const buffersOf = (values: unknown[]) =>
  values.filter((value): value is ArrayBufferView => ArrayBuffer.isView(value)).map((view) => view.buffer as ArrayBuffer);

try {
  // The sibling's part, listened for at once: a message to a port without a listener waits, but only as long as the port lives.
  const received = task.receive && new Promise<AgedPart>((resolve) => task.receive!.once('message', resolve));
  const { reader, close } = await openRecordReader(task.url);
  const builder = agedFactsBuilder(task.side);
  try {
    for (const role of Object.keys(METHOD) as AgedRole[]) {
      const versions = task.versions[role];
      if (versions) await reader.eachKept(versions, KEPT_FIELDS[AGED_INPUTS[task.side][role]] ?? [], builder[METHOD[role]]);
    }
  } finally {
    await close();
  }
  if (task.send) {
    // In id order, the documents it references are matched to the documents read there by a merge (aged-facts.ts).
    const part = builder.part({ sorted: true });
    const { amounts, slots, reductions } = part;
    task.send.postMessage(part, buffersOf([...Object.values(amounts), ...Object.values(slots), ...Object.values(reductions)]));
    task.send.close();
    port.postMessage({ sent: true });
  } else {
    if (received) {
      builder.absorb(await received);
      task.receive!.close();
    }
    const facts: AgedFacts = builder.finish();
    port.postMessage({ facts }, buffersOf([...Object.values(facts), ...Object.values(facts.exact ?? {}), facts.recordIds.ends]));
  }
} catch (err) {
  port.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
