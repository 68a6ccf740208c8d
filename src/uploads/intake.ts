import type { Worker } from 'node:worker_threads';
import type { AcceptedFile, IncomingFile } from '../connectors/connector.js';
import { FileRefused } from '../connectors/connector-error.js';
import { findConnector } from '../connectors/registry.js';
import { startSourceWorker } from '../lib/source-worker.js';

/** What a platform's intake accepted: per file its kept summary, answer and warnings, and its records chunk by chunk. */
export interface Intake {
  accepted: Omit<AcceptedFile, 'records'>[];
  /** The records of file `index`, one chunk at a time (none for a platform that makes none). */
  records(index: number): AsyncIterable<string>;
  /** Lets go of what was read (after the records were kept, or not). */
  release(): void;
}

export interface IntakeRunner {
  /** Reads the files with the platform's intake; throws FileRefused (the documented 400) or FileTooDense. */
  run(platformKey: string, files: IncomingFile[], fields: Record<string, string>, uploaded: string): Promise<Intake>;
  close(): Promise<void>;
}

/** A file whose reading needs more memory than the intake thread has: refused, not a crash. */
export class FileTooDense extends Error {
  constructor() {
    super('the upload holds more than can be read at once; upload fewer or smaller files');
    this.name = 'FileTooDense';
  }
}

/**
 * The intake thread's heap cap. Reading a 10 MB statement keeps about 50 MB alive; the cap leaves room many times
 * over, and a heap this size is grown and collected frugally by V8 (a large one grows by up to four times its
 * live size before collecting), which is what keeps an upload's memory low.
 */
const INTAKE_HEAP_MB = 384;
/** Its young generation: small, so what a read leaves behind is collected before it piles up. */
const INTAKE_YOUNG_MB = 8;

/** Reads on the calling thread: for embedders and tests that register a platform of their own. */
function inline(platformKey: string, files: IncomingFile[], fields: Record<string, string>, uploaded: string): Intake {
  const connector = findConnector(platformKey);
  if (!connector?.files) throw new Error(`platform ${platformKey} reads no files`);
  const accepted = connector.files.accept(files, fields);
  return {
    accepted: accepted.map(({ records: _records, ...meta }) => meta),
    async *records(index: number) {
      yield* accepted[index].records?.(uploaded) ?? [];
    },
    release() {},
  };
}

interface Pending {
  resolve: (message: IntakeMessage) => void;
  reject: (err: Error) => void;
}
type IntakeMessage =
  | { id: number; accepted: Omit<AcceptedFile, 'records'>[] }
  | { id: number; refused: { itemId: string; message: string }[] }
  | { id: number; error: string; unknown?: boolean }
  | { id: number; chunk: string | null };

/**
 * Statement files are read on a thread of their own (one, reused; uploads take turns): the thread answering HTTP
 * stays free while a 10 MB file is read, and the reading happens in a small heap (see INTAKE_HEAP_MB). The records
 * come back a chunk at a time, as the caller stores them. A platform the thread does not know (registered at run
 * time) is read on the calling thread.
 */
export function createIntakeRunner(options: { threads: boolean }): IntakeRunner {
  if (!options.threads) return { run: async (...args) => inline(...args), close: async () => {} };
  let worker: Worker | undefined;
  const pending = new Map<number, Pending>();
  let nextId = 1;
  /** One upload at a time on the thread. */
  let queue: Promise<unknown> = Promise.resolve();

  function thread(): Worker {
    if (worker) return worker;
    const started = startSourceWorker(import.meta.url, './intake-thread', { resourceLimits: { maxOldGenerationSizeMb: INTAKE_HEAP_MB, maxYoungGenerationSizeMb: INTAKE_YOUNG_MB } });
    started.on('message', (message: IntakeMessage) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      waiting.resolve(message);
    });
    const fail = (err: Error) => {
      if (worker === started) worker = undefined;
      const oom = /memory limit|heap out of memory/i.test(err.message) || (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      for (const waiting of pending.values()) waiting.reject(oom ? new FileTooDense() : err);
      pending.clear();
    };
    started.on('error', fail);
    started.on('exit', (code) => fail(new Error(`the intake thread stopped (exit code ${code})`)));
    started.unref();
    worker = started;
    return started;
  }

  /** Sends a message to `to` (a batch's own thread: a restarted thread does not hold it). */
  function ask(message: Record<string, unknown>, to: Worker = thread()): Promise<IntakeMessage> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (to !== worker) return reject(new Error('the intake thread that read this upload has stopped'));
      pending.set(id, { resolve, reject });
      to.postMessage({ ...message, id });
    });
  }

  async function run(platformKey: string, files: IncomingFile[], fields: Record<string, string>, uploaded: string): Promise<Intake> {
    // The bytes are copied to the thread (the caller still keeps the files as uploaded).
    const reader = thread();
    const answer = await ask({ read: { platformKey, files: files.map((f) => ({ name: f.name, contentType: f.contentType, bytes: f.bytes })), fields, uploaded } }, reader);
    if ('refused' in answer) throw new FileRefused(answer.refused);
    if ('error' in answer) {
      if (answer.unknown) return inline(platformKey, files, fields, uploaded);
      throw new Error(answer.error);
    }
    if (!('accepted' in answer)) throw new Error('the intake thread answered out of turn');
    const batch = answer.id;
    return {
      accepted: answer.accepted,
      async *records(index: number) {
        // One chunk ahead: the thread makes the next chunk while this one is stored.
        const request = () => {
          const asked = ask({ next: { batch, index } }, reader);
          // Asked ahead: if the caller stops before taking it, its failure is nobody's to handle.
          asked.catch(() => {});
          return asked;
        };
        let coming = request();
        for (;;) {
          const next = await coming;
          if (!('chunk' in next)) throw new Error('error' in next ? next.error : 'the intake thread answered out of turn');
          if (next.chunk === null) return;
          coming = request();
          yield next.chunk;
        }
      },
      release() {
        if (reader === worker) reader.postMessage({ release: batch });
      },
    };
  }

  return {
    run(...args) {
      const turn = queue.then(() => run(...args));
      // The next upload waits for this one's reading, not for its storing.
      queue = turn.catch(() => undefined);
      return turn;
    },
    async close() {
      const w = worker;
      worker = undefined;
      await w?.terminate();
    },
  };
}
