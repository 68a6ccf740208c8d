import { MessageChannel, type Worker } from 'node:worker_threads';
import { startSourceWorker } from '../../lib/source-worker.js';
import { isInMemoryStore } from '../../storage/database.js';
import type { AgedFacts, AgedSide } from './aged-facts.js';
import type { AgedVersions } from './aged-inputs.js';

/** Reads aged reports' inputs on threads of their own (aged-reading-thread.ts). */
export interface AgedReadingThreads {
  /**
   * The facts of a side's inputs, the versions of each: the `digested` ones from their digests and the documents'
   * other versions on one thread, the rest of the other versions from their tuples on a second one.
   */
  facts(side: AgedSide, versions: AgedVersions, digested: ReadonlySet<number>): Promise<AgedFacts>;
  /** The aged digest of a version just written (null for a data type no aged report reads). */
  digest(version: number, dataType: string): Promise<Uint8Array | null>;
  /** Stops the threads still reading (their reports and digests fail). */
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
 * Threads of their own for the reports' reads, each ended when it has answered (their heaps go back at once; starting
 * one takes tens of milliseconds, nothing worth keeping them for):
 * - a report's first computation over a large company: one thread reads each input version's digest (aged-digest.ts)
 *   and puts the parts together; the versions without one (written before digests) are read from their tuples, the
 *   documents' on that thread and the rest on a second, so that decoding millions of tuples runs on both cores. The
 *   thread answering requests only receives the facts;
 * - a large version's digest, as its sync writes it (aged-version-digests.ts).
 * undefined where the store cannot be opened twice (in-memory SQLite).
 */
export function createAgedReadingThreads(storeUrl: string, options: { deadlineMs?: number } = {}): AgedReadingThreads | undefined {
  if (isInMemoryStore(storeUrl)) return undefined;
  const deadlineMs = options.deadlineMs ?? DEADLINE_MS;
  const running = new Set<Worker>();

  type Answer = { facts?: AgedFacts; digest?: Uint8Array | null };
  function start(task: Record<string, unknown>, transfer: Transferable[]): { worker: Worker; answer: Promise<Answer> } {
    const worker = startSourceWorker(import.meta.url, './aged-reading-thread', {
      workerData: { ...task, url: storeUrl },
      transferList: transfer as never,
      resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_MB },
    });
    running.add(worker);
    const answer = new Promise<Answer>((resolve, reject) => {
      let answered = false;
      worker.on('message', (message: Answer & { sent?: boolean; error?: string }) => {
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

  /** Runs until `answer` settles or the deadline passes, then stops `workers` (all of them, should one fail). */
  async function within<T>(workers: { worker: Worker; answer: Promise<unknown> }[], answer: Promise<T>, what: string): Promise<T> {
    const stop = () => Promise.all(workers.map(({ worker }) => worker.terminate()));
    // Should one thread fail, the others are stopped: a thread waiting for its sibling's parts would wait for ever, and
    // the others' work is of no use. Past the deadline, all are.
    for (const { answer: each } of workers) each.catch(stop);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void stop();
        reject(new Error(`${what} took longer than ${deadlineMs} ms`));
      }, deadlineMs);
      timer.unref();
    });
    try {
      return await Promise.race([answer, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function compute(side: AgedSide, versions: AgedVersions, digested: ReadonlySet<number>): Promise<AgedFacts> {
    if (closed) throw new Error("the aged reports' reading threads are stopped");
    // Versions without a digest are read from their tuples: the documents' on the thread that makes the facts (the
    // most work a record), the rest on a second thread, which has finished by the time the documents are read.
    const { documents: _documents, ...rest } = versions;
    const elsewhere: AgedVersions = Object.fromEntries(
      Object.entries(rest).map(([role, list]) => [role, (list ?? []).filter((version) => !digested.has(version))]),
    );
    const fromSibling = Object.values(elsewhere).flat();
    const task = { do: 'facts', side, versions, digested: [...digested], fromSibling };
    if (fromSibling.length === 0) {
      const maker = start(task, []);
      const made = await within([maker], maker.answer, "an aged report's reading thread");
      if (!made.facts) throw new Error("an aged report's reading thread answered without the facts");
      return made.facts;
    }
    const channel = new MessageChannel();
    const sender = start({ do: 'parts', side, versions: elsewhere, send: channel.port1 }, [channel.port1]);
    let maker: ReturnType<typeof start>;
    try {
      maker = start({ ...task, receive: channel.port2 }, [channel.port2]);
    } catch (err) {
      await sender.worker.terminate();
      throw err;
    }
    const [, made] = await within([sender, maker], Promise.all([sender.answer, maker.answer]), "an aged report's reading threads");
    if (!made.facts) throw new Error("an aged report's reading thread answered without the facts");
    return made.facts;
  }

  async function digestOf(version: number, dataType: string): Promise<Uint8Array | null> {
    if (closed) throw new Error("the aged reports' reading threads are stopped");
    const thread = start({ do: 'digest', version, dataType }, []);
    const made = await within([thread], thread.answer, "an aged digest's thread");
    if (made.digest === undefined) throw new Error("an aged digest's thread answered without the digest");
    return made.digest;
  }

  return {
    facts(side, versions, digested) {
      const facts = turn.then(() => compute(side, versions, digested));
      turn = facts.catch(() => undefined);
      return facts;
    },
    // Digests are not queued behind reports nor each other: a sync waits for its own version's only, and the syncs a
    // process runs at once are already as many as its job slots.
    digest: digestOf,
    async close() {
      closed = true;
      await Promise.all([...running].map((worker) => worker.terminate()));
    },
  };
}
