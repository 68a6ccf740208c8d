import { createHash, createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError, validationError } from '../http/api-error.js';
import { realTime, type BusinessTime } from '../lib/clock.js';
import type { OperationCatalogue } from './operations.js';
import { countByStatus, floorOf, journalPage, recordRequest, type JournalFilter } from './journal.store.js';

/** How many entries the journal keeps per client unless `EMULATOR_JOURNAL_SIZE` says otherwise. */
export const DEFAULT_JOURNAL_SIZE = 10_000;

/** What the journal learns of a request while it runs: its answer's hash, its business time. */
interface Seen {
  response?: string | null;
  time?: BusinessTime;
  /** Recorded already (a fault that closed the connection records its request itself). */
  recorded?: boolean;
  /** A `lostAnswer` rule fired: the entry's status is 0. */
  lost?: boolean;
}

export interface JournalEntry {
  method: string;
  path: string;
  operationId: string;
  companyId?: string;
  status: number;
  durationMs: number;
  clockTime: string;
  requestSha256: string;
  responseSha256?: string;
}

/** Entries each process writes for a client between two trims of its journal (reads apply the bound exactly). */
const TRIM_EVERY = 50;

/**
 * A request's hash: an HMAC-SHA256, keyed per deployment (a body may hold a platform's password, which a plain hash
 * of a predictable shape would let anyone who reads the journal guess), over its method, its path with the query, and
 * its body as parsed (JSON written again; none for a body that was streamed, such as an upload, or not read because
 * the request was answered first). The same call hashes the same on the same deployment, run after run.
 */
function requestHash(key: Buffer, request: FastifyRequest): string {
  const hash = createHmac('sha256', key).update(`${request.method} ${request.url}\n`);
  const body = request.body;
  if (Buffer.isBuffer(body) || typeof body === 'string') hash.update(body);
  else if (body !== undefined && body !== null) hash.update(jsonOrNothing(body));
  return hash.digest('hex');
}

/** A parsed body written again; nothing for one that is not plain data (a multipart body's file streams). */
function jsonOrNothing(body: unknown): string {
  try {
    return JSON.stringify(body) ?? '';
  } catch {
    return '';
  }
}

/**
 * The request journal (docs/emulator.md): every request a client's code makes (the emulator's own controls aside),
 * with its canonical operationId, status, duration, business time and the SHA-256 of what was sent and answered; no
 * key, secret or body is kept. Entries go to the store, so every API process shares the journal.
 */
export function createJournal(deps: {
  db: Kysely<Database>;
  catalogue: OperationCatalogue;
  size: number;
  /** The deployment's key of request hashes (derived from its secret key). */
  hashKey: Buffer;
  companyOf: (request: FastifyRequest) => string | undefined;
  onError: (err: unknown) => void;
}) {
  const { db, catalogue } = deps;
  const seen = new WeakMap<FastifyRequest, Seen>();
  /** Entries this process wrote per client since it last trimmed that client's journal. */
  const sinceTrim = new Map<string, number>();

  const journaled = (request: FastifyRequest) =>
    request.client !== undefined && request.routeOptions.url !== undefined && !request.routeOptions.url.startsWith('/emulator/');

  function trimDue(clientId: string): boolean {
    const count = (sinceTrim.get(clientId) ?? TRIM_EVERY - 1) + 1;
    sinceTrim.set(clientId, count >= TRIM_EVERY ? 0 : count);
    return count >= TRIM_EVERY;
  }

  /** Writes the entry of a request that ended with `status` (0: the connection was closed without an answer). */
  async function record(request: FastifyRequest, status: number, durationMs: number): Promise<void> {
    const state = seen.get(request);
    if (!request.client || !state || state.recorded) return;
    state.recorded = true;
    const names = catalogue.namesOf(request.method, request.routeOptions.url ?? request.url);
    const companyId = deps.companyOf(request);
    await recordRequest(
      db,
      {
        client_id: request.client.id,
        company_id: companyId ?? null,
        at: realTime.now().toISOString(),
        // The pre-handler's choice; for a request answered before it (a fault, a refusal), the guard's.
        clock_time: (state.time?.clock ?? request.businessTime?.clock ?? realTime).now().toISOString(),
        method: request.method,
        path: request.url.split('?')[0],
        operation_id: names.canonical,
        status,
        duration_ms: Math.round(durationMs * 1000) / 1000,
        request_sha256: requestHash(deps.hashKey, request),
        response_sha256: state.response ?? null,
      },
      deps.size,
      trimDue(request.client.id),
    );
  }

  return {
    record,

    /** A `lostAnswer` rule fired on the request: its entry says 0, the status of a connection closed unanswered. */
    markLost(request: FastifyRequest): void {
      const state = seen.get(request);
      if (state) state.lost = true;
    },

    /** Notes the business time a request runs in (the emulator's pre-handler chose it). */
    noteTime(request: FastifyRequest, time: BusinessTime | undefined): void {
      const state = seen.get(request);
      if (state) state.time = time;
    },

    /** Before the guard: a request the guard refuses (a 429 of the quota) is kept too, once its caller is known. */
    installBeforeGuard(server: FastifyInstance): void {
      server.addHook('onRequest', async (request) => {
        seen.set(request, {});
      });
    },

    install(server: FastifyInstance): void {
      server.addHook('onSend', async (request, reply, payload) => {
        const state = seen.get(request);
        if (!state) return payload;
        state.response =
          typeof payload === 'string' || Buffer.isBuffer(payload) ? createHash('sha256').update(payload).digest('hex') : null;
        // Written before the answer leaves: a client that has its answer finds the request in the journal (a lost
        // answer's entry says 0: its connection is closed instead).
        if (journaled(request)) await record(request, state.lost ? 0 : reply.statusCode, reply.elapsedTime).catch(deps.onError);
        return payload;
      });
      // An answer that skipped onSend (none should) is still kept, once.
      server.addHook('onResponse', async (request, reply) => {
        if (!journaled(request)) return;
        record(request, reply.statusCode, reply.elapsedTime).catch(deps.onError);
      });
    },

    async page(clientId: string, query: { companyId?: string; operationId?: string; status?: number; page: number; pageSize: number }) {
      const filter: JournalFilter = {
        fromSeq: await floorOf(db, clientId, deps.size),
        companyId: query.companyId,
        operationIds: query.operationId === undefined ? undefined : catalogue.canonicalsOf(query.operationId),
        status: query.status,
      };
      const { rows, total } = await journalPage(db, clientId, filter, query.page, query.pageSize);
      const entries: JournalEntry[] = rows.map((row) => ({
        method: row.method,
        path: row.path,
        operationId: row.operation_id,
        ...(row.company_id ? { companyId: row.company_id } : {}),
        status: Number(row.status),
        durationMs: Number(row.duration_ms),
        clockTime: row.clock_time,
        requestSha256: row.request_sha256,
        ...(row.response_sha256 ? { responseSha256: row.response_sha256 } : {}),
      }));
      return { entries, total };
    },

    /** 200 `{operationId, count, seen}` when the journal holds exactly `count` such requests; a 409 saying what it holds. */
    async verify(clientId: string, body: { operationId: string; count: number; companyId?: string }) {
      if (!catalogue.knows(body.operationId))
        throw validationError(`ValidationException: ${body.operationId} is not an operationId of Codat's or of Ledgerport.`, [
          { itemId: 'operationId', message: `no operation is named ${body.operationId}`, validatorName: 'VerifyRequests' },
        ]);
      const byStatus = await countByStatus(db, clientId, {
        fromSeq: await floorOf(db, clientId, deps.size),
        operationIds: catalogue.canonicalsOf(body.operationId),
        companyId: body.companyId,
      });
      const seenCount = byStatus.reduce((sum, [, n]) => sum + n, 0);
      if (seenCount !== body.count) {
        const scope = body.companyId ? ` for company ${body.companyId}` : '';
        const statuses = byStatus.length === 0 ? '' : ` (${byStatus.map(([status, n]) => `${n} answered ${status}`).join(', ')})`;
        throw new ApiError(
          409,
          `Conflict: expected ${body.count} request(s) of ${body.operationId}${scope}, the journal holds ${seenCount}${statuses}.`,
        );
      }
      return { operationId: body.operationId, count: body.count, seen: seenCount };
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;
