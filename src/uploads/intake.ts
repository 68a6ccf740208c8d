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
type IntakeMessage = (
  | { id: number; accepted: Omit<AcceptedFile, 'records'>[] }
  | { id: number; refused: { itemId: string; message: string }[] }
  | { id: number; error: string; unknown?: boolean }
  | { id: number; chunk: string | null }
) & { bytes?: Uint8Array[] };

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
    const started = startSourceWorker(import.meta.url, './intake-thread', {
      resourceLimits: { maxOldGenerationSizeMb: INTAKE_HEAP_MB, maxYoungGenerationSizeMb: INTAKE_YOUNG_MB },
    });
    started.on('message', (message: IntakeMessage | { recycle: true }) => {
      if ('recycle' in message) return recycle(started);
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      waiting.resolve(message);
    });
    const fail = (err: Error) => {
      // Only the current thread's end fails what is pending. A thread replaced (recycled, or after its first
      // 'error' before its 'exit') may end later, when the requests pending are its successor's.
      if (started !== worker) return;
      worker = undefined;
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

  /**
   * V8 keeps a heap at the size it grew to: after a large file, tens of megabytes that stay with the process while
   * the file's data is synced, and that the next small file does not need. A thread that says it grew that far and
   * holds nothing (nor has been asked anything since) is replaced by a new one, started now so that the next upload
   * does not wait for it: the memory goes back at once.
   */
  function recycle(old: Worker): void {
    if (old !== worker || pending.size > 0) return;
    worker = undefined;
    void old.terminate();
    thread();
  }

  /** Sends a message to `to` (a batch's own thread: a restarted thread does not hold it), moving `transfer` there. */
  function ask(message: Record<string, unknown>, to: Worker = thread(), transfer: ArrayBuffer[] = []): Promise<IntakeMessage> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (to !== worker) return reject(new Error('the intake thread that read this upload has stopped'));
      pending.set(id, { resolve, reject });
      to.postMessage({ ...message, id }, transfer);
    });
  }

  async function run(platformKey: string, files: IncomingFile[], fields: Record<string, string>, uploaded: string): Promise<Intake> {
    // The bytes move to the thread and back with its answer, instead of being copied (ten megabytes a file):
    // meanwhile the caller's files have none. A file that shares its buffer with other data is copied alone.
    const reader = thread();
    const moved = files.map((f) =>
      f.bytes.byteOffset === 0 && f.bytes.byteLength === f.bytes.buffer.byteLength ? f.bytes : f.bytes.slice(),
    );
    const answer = await ask(
      {
        read: {
          platformKey,
          files: files.map((f, i) => ({ name: f.name, contentType: f.contentType, bytes: moved[i] })),
          fields,
          uploaded,
        },
      },
      reader,
      moved.map((b) => b.buffer as ArrayBuffer),
    );
    answer.bytes?.forEach((bytes, i) => (files[i].bytes = bytes));
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
      // Its end no longer fails anything (see fail): what it was asked fails here.
      for (const waiting of pending.values()) waiting.reject(new Error('the intake thread was stopped'));
      pending.clear();
      await w?.terminate();
    },
  };
}
