import { MessageChannel, type Worker } from 'node:worker_threads';
import { startSourceWorker } from '../../lib/source-worker.js';
import { isInMemoryStore } from '../../storage/database.js';
import type { AgedFacts, AgedRole, AgedSide } from './aged-facts.js';

/** Makes an aged report's facts on two threads of their own (aged-reading-thread.ts). */
export interface AgedReadingThreads {
  /** The facts of a side's inputs, the versions of each (the documents on one thread, the rest on the other). */
  facts(side: AgedSide, versions: Partial<Record<AgedRole, number[]>>): Promise<AgedFacts>;
  /** Stops the threads still reading (their reports fail). */
  close(): Promise<void>;
}

/**
 * The young generation of a reading thread. Decoding a million kept tuples makes short-lived arrays by the gigabyte,
 * while what the facts keep (ids, amounts) survives them: a larger nursery than V8's default is scavenged less often,
 * and each scavenge copies the same survivors (docs/benchmarks.md).
 */
const READER_YOUNG_MB = 96;

/**
 * How long a computation may take before its threads are stopped and its report fails: a million invoices take
 * seconds; a read that stalls (a store that stops answering) must not hold the queue of the computations behind it
 * for ever.
 */
const DEADLINE_MS = 10 * 60 * 1000;

/**
 * Two threads a computation, ended when it has answered: the payments, credit notes and counterparties are read on one
 * while the documents are read on the other, which then takes the rest in and makes the facts. The decoding of
 * millions of tuples then runs on both cores, in heaps of their own, and the thread answering requests only receives
 * the facts. A report's first computation over a large company is rare and seconds long: starting two threads (tens of
 * milliseconds) costs nothing worth keeping them for, and their heaps go back at once. undefined where the store
 * cannot be opened twice (in-memory SQLite).
 */
export function createAgedReadingThreads(storeUrl: string, options: { deadlineMs?: number } = {}): AgedReadingThreads | undefined {
  if (isInMemoryStore(storeUrl)) return undefined;
  const deadlineMs = options.deadlineMs ?? DEADLINE_MS;
  const running = new Set<Worker>();

  function start(task: Record<string, unknown>, transfer: Transferable[]): { worker: Worker; answer: Promise<{ facts?: AgedFacts }> } {
    const worker = startSourceWorker(import.meta.url, './aged-reading-thread', {
      workerData: { ...task, url: storeUrl },
      transferList: transfer as never,
      resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_MB },
    });
    running.add(worker);
    const answer = new Promise<{ facts?: AgedFacts }>((resolve, reject) => {
      let answered = false;
      worker.on('message', (message: { facts?: AgedFacts; sent?: boolean; error?: string }) => {
        answered = true;
        if (message.error !== undefined) reject(new Error(`reading an aged report's inputs on a thread failed: ${message.error}`));
        else resolve(message);
      });
      worker.on('error', (err) => {
        answered = true;
        reject(err);
      });
      worker.on('exit', (code) => {
        running.delete(worker);
        if (!answered) reject(new Error(`an aged report's reading thread stopped (exit code ${code})`));
      });
    });
    // Whoever awaits it hears of its failure; until then, it must not be an unhandled rejection.
    answer.catch(() => {});
    return { worker, answer };
  }

  // One computation at a time: two threads already take both cores, and each holds a large company's records in its
  // heap. Others wait their turn (first come, first served).
  let turn: Promise<unknown> = Promise.resolve();

  let closed = false;

  async function compute(side: AgedSide, versions: Partial<Record<AgedRole, number[]>>): Promise<AgedFacts> {
    if (closed) throw new Error("the aged reports' reading threads are stopped");
    // The documents on one thread (the most work a record: a counterparty, a slot, allocations); everything else on
    // the other, which has finished by the time the documents are read.
    const { documents, ...rest } = versions;
    const channel = new MessageChannel();
    const sender = start({ side, versions: rest, send: channel.port1 }, [channel.port1]);
    let maker: ReturnType<typeof start>;
    try {
      maker = start({ side, versions: { documents }, receive: channel.port2 }, [channel.port2]);
    } catch (err) {
      await sender.worker.terminate();
      throw err;
    }
    const stop = () => Promise.all([sender.worker.terminate(), maker.worker.terminate()]);
    // Should one thread fail, the other is stopped: the thread waiting for its sibling's part would wait for ever, and
    // the other's work is of no use. Past the deadline, both are.
    sender.answer.catch(stop);
    maker.answer.catch(stop);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void stop();
        reject(new Error(`an aged report's reading threads took longer than ${deadlineMs} ms`));
      }, deadlineMs);
      timer.unref();
    });
    try {
      const [, made] = await Promise.race([Promise.all([sender.answer, maker.answer]), deadline]);
      if (!made.facts) throw new Error("an aged report's reading thread answered without the facts");
      return made.facts;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    facts(side, versions) {
      const facts = turn.then(() => compute(side, versions));
      turn = facts.catch(() => undefined);
      return facts;
    },
    async close() {
      closed = true;
      await Promise.all([...running].map((worker) => worker.terminate()));
    },
  };
}
