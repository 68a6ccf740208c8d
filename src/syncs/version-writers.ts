import type { Worker } from 'node:worker_threads';
import { startSourceWorker } from '../lib/source-worker.js';
import { isInMemoryStore, type Store } from '../storage/database.js';
import { runVersionTask, type VersionResult, type VersionTask } from './version-task.js';
import { ConnectorError, isConnectorError, type ConnectorErrorKind } from '../connectors/connector-error.js';
import type { TokenSource } from '../connectors/connector.js';
import { pauseAccount, takeTurn, type Politeness } from '../connectors/politeness.js';

/**
 * A writing thread's heap cap. A sync keeps a page of records and one sorted run alive (tens of megabytes even for
 * a million records); under a cap V8 grows a heap by less before collecting it (by up to four times its live size
 * without one), so each thread's memory stays near what it uses.
 */
const WRITER_HEAP_MB = 1024;

/** Writes data-set versions for sync jobs, on writing threads when the store allows a second connection. */
export interface VersionWriters {
  /**
   * Writes the version; `onProgress` gets the records written so far and may throw to stop the write. `tokens`: an
   * OAuth2 connection's access token, asked of this thread by a writing thread (the refresh is settled here).
   */
  write(task: VersionTask, onProgress: (written: number) => Promise<void>, tokens?: TokenSource): Promise<VersionResult>;
  /** Stops the threads (after the jobs that use them have finished). */
  close(): Promise<void>;
}

interface Running {
  onProgress: (written: number) => Promise<void>;
  tokens?: TokenSource;
  /** The progress callbacks so far, chained: the task settles only after the last one (no stale write after it). */
  progress: Promise<void>;
  resolve: (result: VersionResult) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  ready: Promise<void>;
  running?: number;
  /** Turns towards platforms the thread holds (see politeness.ts), by the thread's number for each. */
  turns: Map<number, () => void>;
}

/**
 * Up to `threads` writing threads, started when first needed and reused. Writing a version is the CPU-heavy
 * part of a sync (generating, serialising, hashing and inserting every record): off the main thread, requests
 * keep being answered at full speed while it runs. An in-memory SQLite store cannot be shared between
 * connections, so it (and `threads: 0`) writes on the calling thread.
 */
export function createVersionWriters(store: Store, options: { threads: number }): VersionWriters {
  if (options.threads <= 0 || isInMemoryStore(store.url)) {
    return { write: (task, onProgress, tokens) => runVersionTask(store, task, onProgress, tokens), close: async () => {} };
  }
  const threads: Thread[] = [];
  const running = new Map<number, Running>();
  const waiting: ((thread: Thread) => void)[] = [];
  let nextId = 1;
  let closed = false;

  function start(): Thread {
    const worker: Worker = startSourceWorker(import.meta.url, './version-writer-thread', {
      workerData: { url: store.url },
      resourceLimits: { maxOldGenerationSizeMb: WRITER_HEAP_MB },
    });
    let markReady: () => void = () => {};
    let markFailed: (err: Error) => void = () => {};
    const thread: Thread = {
      turns: new Map(),
      worker,
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        markFailed = reject;
      }),
    };
    thread.ready.catch(() => {});
    worker.on(
      'message',
      (message: {
        ready?: boolean;
        id?: number;
        written?: number;
        result?: VersionResult;
        error?: string;
        kind?: ConnectorErrorKind;
        retryAfterMs?: number;
        token?: { request: number; rejected?: string };
        politeness?: { turn?: number; account?: string; limits?: Politeness; done?: number; pause?: string; forMs?: number };
      }) => {
        if (message.ready) return markReady();
        if (message.politeness) return politenessFor(thread, message.politeness);
        const task = message.id === undefined ? undefined : running.get(message.id);
        if (!task || message.id === undefined) return;
        const id = message.id;
        if (message.token) {
          const { request, rejected } = message.token;
          const answer = task.tokens
            ? task.tokens.accessToken(rejected)
            : Promise.reject(new ConnectorError('unauthorized', 'this connection has no OAuth tokens'));
          answer.then(
            (token) => worker.postMessage({ id, tokenReply: { request, token } }),
            (err: unknown) =>
              worker.postMessage({
                id,
                tokenReply: {
                  request,
                  error: err instanceof Error ? err.message : String(err),
                  kind: isConnectorError(err) ? err.kind : undefined,
                },
              }),
          );
          return;
        }
        if (message.written !== undefined) {
          const written = message.written;
          task.progress = task.progress.then(() => task.onProgress(written)).catch(() => worker.postMessage({ id, abort: true }));
          return;
        }
        running.delete(id);
        release(thread);
        void task.progress.then(() => {
          if (message.error !== undefined)
            task.reject(
              message.kind ? new ConnectorError(message.kind, message.error, undefined, message.retryAfterMs) : new Error(message.error),
            );
          else task.resolve(message.result as VersionResult);
        });
      },
    );
    const fail = (err: Error) => {
      const index = threads.indexOf(thread);
      if (index < 0) return; // 'error' is followed by 'exit': handled once
      // Turns the lost thread held towards platforms end with it.
      for (const end of thread.turns.values()) end();
      thread.turns.clear();
      threads.splice(index, 1);
      markFailed(err);
      if (thread.running !== undefined) {
        running.get(thread.running)?.reject(err);
        running.delete(thread.running);
      }
      // A task waiting for a thread gets a new one in place of the lost one.
      if (waiting.length > 0 && !closed) waiting.shift()?.(start());
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the writing thread stopped (exit code ${code})`)));
    threads.push(thread);
    return thread;
  }

  /** A writing thread's turn towards a platform, taken here so that every thread shares one budget per account. */
  function politenessFor(
    thread: Thread,
    message: { turn?: number; account?: string; limits?: Politeness; done?: number; pause?: string; forMs?: number },
  ): void {
    if (message.pause !== undefined) return pauseAccount(message.pause, message.forMs ?? 0);
    if (message.done !== undefined) {
      thread.turns.get(message.done)?.();
      thread.turns.delete(message.done);
      return;
    }
    if (message.turn === undefined || !message.account || !message.limits) return;
    const turn = message.turn;
    void takeTurn(message.account, message.limits).then((end) => {
      if (!threads.includes(thread)) return end();
      thread.turns.set(turn, end);
      thread.worker.postMessage({ granted: turn });
    });
  }

  function release(thread: Thread): void {
    thread.running = undefined;
    waiting.shift()?.(thread);
  }

  async function acquire(): Promise<Thread> {
    const idle = threads.find((t) => t.running === undefined);
    if (idle) return idle;
    if (threads.length < options.threads) return start();
    return new Promise((resolve) => waiting.push(resolve));
  }

  return {
    async write(task, onProgress, tokens) {
      const thread = await acquire();
      const id = nextId++;
      thread.running = id;
      await thread.ready;
      return new Promise<VersionResult>((resolve, reject) => {
        running.set(id, { onProgress, tokens, progress: Promise.resolve(), resolve, reject });
        thread.worker.postMessage({ id, task, oauth: tokens !== undefined });
      });
    },
    async close() {
      closed = true;
      await Promise.all(threads.splice(0).map((t) => t.worker.terminate()));
    },
  };
}
