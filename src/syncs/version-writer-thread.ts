import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../storage/database.js';
import { runVersionTask, type VersionTask } from './version-task.js';
import { ConnectorError, isConnectorError, type ConnectorErrorKind } from '../connectors/connector-error.js';
import type { TokenSource } from '../connectors/connector.js';
import { usePolitenessBroker } from '../connectors/politeness.js';

/**
 * A sync's writing thread: generates (fetches) a data set's records and writes the new version over its own
 * store connection, so the thread that answers HTTP requests stays free while a million records are written.
 * Messages in: `{ id, task, oauth }` to start, `{ id, abort: true }` to stop at the next batch, `{ id, tokenReply }`.
 * Messages out: `{ id, written }` after each batch, `{ id, token }` to ask for an OAuth2 access token (the refresh
 * is settled on the calling thread), then `{ id, result }` or `{ id, error }`; and `{ politeness }` to take, end or
 * pause a turn towards a platform (answered `{ granted }`).
 */
const store = await openStore((workerData as { url: string }).url, { poolSize: 2, mmapBytes: 0 });
const aborted = new Set<number>();
const port = parentPort!;

type TokenReply = { request: number; token?: string; error?: string; kind?: ConnectorErrorKind };
const tokenRequests = new Map<number, { resolve: (token: string) => void; reject: (err: Error) => void }>();
let nextRequest = 1;

/** The task's access token, asked of the thread that runs the sync job. */
function tokensFor(id: number): TokenSource {
  return {
    accessToken(rejected?: string): Promise<string> {
      const request = nextRequest++;
      return new Promise((resolve, reject) => {
        tokenRequests.set(request, { resolve, reject });
        port.postMessage({ id, token: { request, rejected } });
      });
    },
  };
}

// Politeness towards platforms is kept by the thread that started this one, so all its threads share one budget.
const turns = new Map<number, () => void>();
let nextTurn = 1;
usePolitenessBroker({
  turn(account, limits) {
    const turn = nextTurn++;
    return new Promise((resolve) => {
      turns.set(turn, () => resolve(() => port.postMessage({ politeness: { done: turn } })));
      port.postMessage({ politeness: { turn, account, limits } });
    });
  },
  pause(account, forMs) {
    port.postMessage({ politeness: { pause: account, forMs } });
  },
});

port.on(
  'message',
  (message: { id: number; task?: VersionTask; oauth?: boolean; abort?: boolean; tokenReply?: TokenReply; granted?: number }) => {
    if (message.granted !== undefined) {
      turns.get(message.granted)?.();
      turns.delete(message.granted);
      return;
    }
    if (message.abort) {
      aborted.add(message.id);
      return;
    }
    if (message.tokenReply) {
      const reply = message.tokenReply;
      const waiting = tokenRequests.get(reply.request);
      tokenRequests.delete(reply.request);
      if (reply.token !== undefined) waiting?.resolve(reply.token);
      else waiting?.reject(reply.kind ? new ConnectorError(reply.kind, reply.error ?? '') : new Error(reply.error));
      return;
    }
    const { id, task } = message;
    if (!task) return;
    runVersionTask(
      store,
      task,
      async (written) => {
        if (aborted.has(id)) throw new Error('the sync was stopped');
        port.postMessage({ id, written });
      },
      message.oauth ? tokensFor(id) : undefined,
    )
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
  },
);
port.postMessage({ ready: true });
