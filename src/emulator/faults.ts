import { createHash, randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError, notFound, validationError, type ValidationItem } from '../http/api-error.js';
import { isDataType } from '../codat-model/data-types.js';
import { TOO_MANY_REQUESTS } from '../access/rate-limiter.js';
import { realTime } from '../lib/clock.js';
import { shapeOf, type OperationCatalogue } from './operations.js';
import type { Journal } from './journal.js';
import type { SyncFault, SyncFaults } from '../syncs/sync-job.js';
import type { PushFault, PushFaults } from '../push/push-job.js';
import type { DeliveryFault, DeliveryFaults } from '../webhooks/delivery-job.js';
import { isEventType } from '../webhooks/events.js';
import {
  holdDelivery,
  releaseDeliveries,
  takeHeldDelivery,
  deleteFault,
  deleteFaults,
  faultCount,
  faultOf,
  faultsOf,
  firedOn,
  recordFiredOn,
  NO_FAULT,
  insertFault,
  liveFaultsOf,
  takeDraw,
  takeFiring,
  type FaultRow,
} from './faults.store.js';

/** What a request must be for a rule to fire: every field given must hold. */
export interface FaultMatch {
  operationId?: string;
  method?: string;
  path?: string;
  companyId?: string;
  connectionId?: string;
  dataType?: string;
  eventType?: string;
}

/** Codat's validation of a write a platform refused: what a `pushOutcome` of `Failed` reports as its errors. */
export interface FaultValidation {
  errors: { itemId?: string; message: string; validatorName?: string }[];
}

/**
 * What a rule does when it fires. On the matching request to Ledgerport: `http`, `latency`, `reset`, `lostAnswer`; on
 * the next matching sync: `deauthorize`, `syncError`; on the next matching write: `pushOutcome`.
 */
export type FaultAction =
  | { type: 'http'; status: number; retryAfter?: number }
  | { type: 'latency'; delayMs: number }
  | { type: 'latency'; medianMs: number; sigma: number }
  | { type: 'reset' }
  | { type: 'lostAnswer' }
  | { type: 'deauthorize' }
  | { type: 'syncError'; status: 'FetchError' | 'AuthError' }
  | { type: 'pushOutcome'; status: 'Failed'; validation?: FaultValidation }
  | { type: 'pushOutcome'; status: 'TimedOut' }
  | { type: 'webhook'; mode: 'duplicate' | 'delay' | 'reorder'; delayMs?: number };

/** The action types rules may take. */
export const FAULT_ACTION_TYPES = ['http', 'latency', 'reset', 'lostAnswer', 'deauthorize', 'syncError', 'pushOutcome', 'webhook'] as const;
type ActionType = (typeof FAULT_ACTION_TYPES)[number];
/** Actions that fire on the matching request; the others on the next matching sync or write, whatever asked for it. */
const ON_REQUEST: ReadonlySet<ActionType> = new Set(['http', 'latency', 'reset', 'lostAnswer']);
const ON_SYNC: ReadonlySet<ActionType> = new Set(['deauthorize', 'syncError']);
const ON_WRITE: ReadonlySet<ActionType> = new Set(['pushOutcome']);
const ON_DELIVERY: ReadonlySet<ActionType> = new Set(['webhook']);
/** How long a delayed delivery waits, and the longest a reordered one is held, unless the rule says. */
const DEFAULT_DELIVERY_DELAY_MS = 1_000;
const DEFAULT_HOLD_MS = 30_000;

export interface FaultRule {
  match: FaultMatch;
  action: FaultAction;
  times?: number;
  probability?: number;
  seed?: number;
}

/** A rule as the controls show it. */
export interface Fault extends FaultRule {
  id: string;
  created: string;
  /** How many times it has fired. */
  fired: number;
  /** Whether it has fired its `times` and fires no more. */
  spent: boolean;
}

const ACTION_FIELDS: Record<ActionType, readonly string[]> = {
  http: ['status', 'retryAfter'],
  latency: ['delayMs', 'medianMs', 'sigma'],
  reset: [],
  lostAnswer: [],
  deauthorize: [],
  syncError: ['status'],
  pushOutcome: ['status', 'validation'],
  webhook: ['mode', 'delayMs'],
};

const item = (itemId: string, message: string): ValidationItem => ({ itemId, message, validatorName: 'FaultRule' });

function invalid(items: ValidationItem[]): ApiError {
  return validationError(`ValidationException: The fault rule is not valid: ${items.map((i) => i.message).join('; ')}.`, items);
}

/** The longest latency actions keep one request waiting, all of them together (a test's request should end, not hang). */
const MAX_DELAY_MS = 60_000;
/** How many rules a client may keep. */
const MAX_RULES = 100;

/**
 * A rule's draw in [0, 1): the `n`th number of one of its seeded sequences (`fire` for its probability, `delay` for a
 * log-normal latency), the same run after run; without a seed, random.
 */
function draw(seed: number | null, sequence: 'fire' | 'delay', n: number): number {
  if (seed === null) return Math.random();
  return createHash('sha256').update(`${seed}:${sequence}:${n}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** A log-normal delay around `medianMs` (the `n`th and next draws of the rule's sequence, as a normal by Box–Muller). */
function logNormalDelay(medianMs: number, sigma: number, u1: number, u2: number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
  return Math.min(MAX_DELAY_MS, medianMs * Math.exp(sigma * normal));
}

/** The data type a request is about: its `dataType` parameter, or the data type its path names. */
function dataTypeOf(routeUrl: string, params: Record<string, unknown>): string | undefined {
  if (typeof params.dataType === 'string') return params.dataType;
  const named = /\/data\/([A-Za-z-]+)(?:\/|$)/.exec(routeUrl)?.[1];
  return named && isDataType(named) ? named : undefined;
}

/** A JSON object's text parsed; undefined for anything else. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Fault rules (docs/emulator.md, "Fault rules"): a client's rules that answer its matching requests with an error,
 * slow them or close their connection, so its code meets what a real service does on a bad day, reproducibly.
 */
export function createFaults(deps: {
  db: Kysely<Database>;
  catalogue: OperationCatalogue;
  journal: Journal;
  onError: (err: unknown) => void;
}) {
  const { db, catalogue } = deps;

  function validate(rule: FaultRule): void {
    const problems: ValidationItem[] = [];
    const { match, action } = rule;
    if ((match.method === undefined) !== (match.path === undefined))
      problems.push(item(match.method === undefined ? 'match.method' : 'match.path', 'match.method and match.path go together'));
    else if (match.method !== undefined && match.path !== undefined && !catalogue.serves(match.method, match.path))
      problems.push(item('match.path', `${match.method} ${match.path} is not an operation of Ledgerport`));
    if (match.operationId !== undefined && !catalogue.knows(match.operationId))
      problems.push(item('match.operationId', `${match.operationId} is not an operationId of Codat's or of Ledgerport`));
    if (match.dataType !== undefined && !isDataType(match.dataType))
      problems.push(item('match.dataType', `${match.dataType} is not a data type`));
    if (match.eventType !== undefined && action.type !== 'webhook')
      problems.push(item('match.eventType', `eventType matches webhook deliveries; a ${action.type} action does not act on them`));
    else if (match.eventType !== undefined && !isEventType(match.eventType))
      problems.push(item('match.eventType', `${match.eventType} is not an event type Ledgerport sends`));
    if (!ON_REQUEST.has(action.type))
      for (const field of ['operationId', 'method', 'path'] as const)
        if (match[field] !== undefined)
          problems.push(
            item(
              `match.${field}`,
              `a ${action.type} action fires on the next matching ${ON_SYNC.has(action.type) ? 'sync' : ON_DELIVERY.has(action.type) ? 'webhook delivery' : 'write'}, whatever request caused it: match it by companyId, connectionId or dataType${ON_DELIVERY.has(action.type) ? ', and eventType' : ''}`,
            ),
          );
    const fields = action as Record<string, unknown>;
    for (const field of Object.keys(fields))
      if (field !== 'type' && !ACTION_FIELDS[action.type].includes(field))
        problems.push(item(`action.${field}`, `a ${action.type} action takes no ${field}`));
    if (action.type === 'http') {
      if (typeof fields.status !== 'number' || !Number.isInteger(fields.status) || fields.status < 400 || fields.status > 599)
        problems.push(item('action.status', 'action.status must be an HTTP error status, 400 to 599'));
    }
    if (action.type === 'webhook') {
      if (fields.mode !== 'duplicate' && fields.mode !== 'delay' && fields.mode !== 'reorder')
        problems.push(item('action.mode', 'action.mode must be duplicate, delay or reorder'));
      else if (fields.mode === 'duplicate' && fields.delayMs !== undefined)
        problems.push(item('action.delayMs', 'a duplicate is sent at once: it takes no delayMs'));
      else if (fields.delayMs !== undefined && (!Number.isInteger(fields.delayMs) || (fields.delayMs as number) > 60_000))
        problems.push(item('action.delayMs', 'action.delayMs must be a whole number of milliseconds, at most 60000'));
    }
    if (action.type === 'syncError' && fields.status !== 'FetchError' && fields.status !== 'AuthError')
      problems.push(item('action.status', 'action.status must be FetchError or AuthError'));
    if (action.type === 'pushOutcome') {
      if (fields.status !== 'Failed' && fields.status !== 'TimedOut')
        problems.push(item('action.status', 'action.status must be Failed or TimedOut'));
      else if (fields.status === 'TimedOut' && fields.validation !== undefined)
        problems.push(item('action.validation', 'a TimedOut write has no validation'));
    }
    if (action.type === 'latency') {
      const fixed = fields.delayMs !== undefined;
      const spread = fields.medianMs !== undefined || fields.sigma !== undefined;
      if (fixed === spread) problems.push(item('action.delayMs', 'give either action.delayMs, or action.medianMs and action.sigma'));
      else if (spread && (fields.medianMs === undefined || fields.sigma === undefined))
        problems.push(
          item(fields.medianMs === undefined ? 'action.medianMs' : 'action.sigma', 'action.medianMs and action.sigma go together'),
        );
    }
    if (rule.seed !== undefined && rule.probability === undefined && !(action.type === 'latency' && fields.medianMs !== undefined))
      problems.push(item('seed', "seed seeds probability's draws and a log-normal latency's: give one of them"));
    if (problems.length > 0) throw invalid(problems);
  }

  function served(row: FaultRow): Fault {
    const times = row.times === null ? undefined : Number(row.times);
    return {
      id: row.id,
      match: JSON.parse(row.match) as FaultMatch,
      action: JSON.parse(row.action) as FaultAction,
      ...(times !== undefined ? { times } : {}),
      ...(row.probability !== null ? { probability: Number(row.probability) } : {}),
      ...(row.seed !== null ? { seed: Number(row.seed) } : {}),
      created: row.created,
      fired: Number(row.fired),
      spent: times !== undefined && Number(row.fired) >= times,
    };
  }

  /** Whether a rule's match holds for a request (its route, parameters and names). */
  function matchesRequest(match: FaultMatch, request: FastifyRequest, routeUrl: string): boolean {
    const params = (request.params ?? {}) as Record<string, unknown>;
    if (match.eventType !== undefined) return false;
    if (match.operationId !== undefined && !catalogue.namesOf(request.method, routeUrl).aliases.has(match.operationId)) return false;
    if (match.method !== undefined && (match.method !== request.method || shapeOf(match.path ?? '') !== shapeOf(routeUrl))) return false;
    if (match.companyId !== undefined && params.companyId !== match.companyId) return false;
    if (match.connectionId !== undefined && params.connectionId !== match.connectionId) return false;
    if (match.dataType !== undefined && dataTypeOf(routeUrl, params) !== match.dataType) return false;
    return true;
  }

  /**
   * Whether a matching rule fires this time: its draw against `probability`, then one of its `times`. Firing, the
   * firing's index in the rule's sequence (0 for its first); undefined when it does not fire.
   */
  async function fires(row: FaultRow, executor: Kysely<Database> = db): Promise<number | undefined> {
    const seed = row.seed === null ? null : Number(row.seed);
    if (row.probability !== null && draw(seed, 'fire', await takeDraw(executor, row.id)) >= Number(row.probability)) return undefined;
    return takeFiring(executor, row.id);
  }

  /** A latency action's delay for its `n`th firing. */
  function delayOf(row: FaultRow, action: Extract<FaultAction, { type: 'latency' }>, n: number): number {
    if ('delayMs' in action) return Math.min(MAX_DELAY_MS, action.delayMs);
    const seed = row.seed === null ? null : Number(row.seed);
    return logNormalDelay(action.medianMs, action.sigma, draw(seed, 'delay', 2 * n), draw(seed, 'delay', 2 * n + 1));
  }

  /** Requests whose answer a `lostAnswer` rule loses: processed, then their connection closed unanswered. */
  const losing = new WeakSet<FastifyRequest>();

  /** Applies the client's matching rules to a request: waits, then answers an error or closes the connection. */
  async function onRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const routeUrl = request.routeOptions.url;
    if (!request.client || routeUrl === undefined || routeUrl.startsWith('/emulator/')) return undefined;
    // However many latency rules match, a request waits at most MAX_DELAY_MS in all.
    let waited = 0;
    for (const row of await liveFaultsOf(db, request.client.id)) {
      const action = JSON.parse(row.action) as FaultAction;
      if (!ON_REQUEST.has(action.type)) continue;
      const match = JSON.parse(row.match) as FaultMatch;
      if (!matchesRequest(match, request, routeUrl)) continue;
      const n = await fires(row);
      if (n === undefined) continue;
      if (action.type === 'lostAnswer') {
        losing.add(request);
        deps.journal.markLost(request);
        continue;
      }
      if (action.type === 'latency') {
        const ms = Math.min(delayOf(row, action, n), MAX_DELAY_MS - waited);
        waited += ms;
        await sleep(ms);
        continue;
      }
      if (action.type === 'reset') {
        await deps.journal.record(request, 0, reply.elapsedTime).catch(deps.onError);
        reply.hijack();
        request.raw.socket?.destroy();
        return reply;
      }
      if (action.type !== 'http') continue;
      // A 429 says what the service's own rate limit says; other statuses name the rule that answered.
      const message =
        action.status === 429
          ? TOO_MANY_REQUESTS
          : `${STATUS_CODES[action.status] ?? 'Error'}: the emulator's fault rule ${row.id} answered this request.`;
      throw new ApiError(action.status, message, {
        headers: action.retryAfter === undefined ? {} : { 'Retry-After': String(action.retryAfter) },
      });
    }
    return undefined;
  }

  /** The first live rule of `types` whose match holds for a sync's, write's or delivery's target and that fires this time. */
  async function domainFault(
    target: {
      clientId: string;
      companyId?: string | null;
      /** The connection and data type of a sync or write; those an event's body names (several, for read.completed). */
      connectionId?: string | readonly string[];
      dataType?: string | readonly string[];
      eventType?: string;
      /** The sync, write or delivery: a run that takes it over meets the fault the first run met (`pull:<id>`…). */
      workId: string;
    },
    types: ReadonlySet<ActionType>,
  ): Promise<{ id: string; action: FaultAction } | undefined> {
    const holds = (wanted: string | undefined, actual: string | readonly string[] | undefined) =>
      wanted === undefined || (typeof actual === 'string' ? actual === wanted : (actual?.includes(wanted) ?? false));
    const all = await faultsOf(db, target.clientId);
    // No rule at all (spent ones included): nothing fires, and nothing fired on a run before.
    if (all.length === 0) return undefined;
    const live = all.filter((row) => row.times === null || Number(row.fired) < Number(row.times));
    const rules = live.filter((row) => {
      const action = JSON.parse(row.action) as FaultAction;
      if (!types.has(action.type)) return false;
      const match = JSON.parse(row.match) as FaultMatch;
      if (match.companyId !== undefined && match.companyId !== target.companyId) return false;
      if (!holds(match.connectionId, target.connectionId) || !holds(match.dataType, target.dataType)) return false;
      return match.eventType === undefined || match.eventType === target.eventType;
    });
    // A rule spent by the first run is no longer live, yet its rerun must meet it: look up what was decided first.
    const decided = await firedOn(db, target.clientId, target.workId);
    if (decided) return decided.action === null ? undefined : { id: decided.faultId, action: JSON.parse(decided.action) as FaultAction };
    if (rules.length === 0) return undefined;
    // The draws, the firing and what the work met, together: a run that dies between them leaves none of it.
    return db.transaction().execute(async (trx) => {
      const work = { workId: target.workId, companyId: target.companyId ?? null };
      for (const row of rules) {
        if ((await fires(row, trx)) === undefined) continue;
        await recordFiredOn(trx, target.clientId, { ...work, faultId: row.id });
        return { id: row.id, action: JSON.parse(row.action) as FaultAction };
      }
      // Drawn against and not fired: a rerun does not draw again.
      await recordFiredOn(trx, target.clientId, { ...work, faultId: NO_FAULT });
      return undefined;
    });
  }

  const webhooks: DeliveryFaults = {
    async beforeFirstAttempt(target): Promise<DeliveryFault | undefined> {
      // What the event is about, as its body says: a connection, a data type, or (read.completed) several of each.
      const payload = (jsonObject(target.body)?.payload ?? {}) as Record<string, unknown>;
      const entries = [payload, ...(Array.isArray(payload.dataTypes) ? (payload.dataTypes as Record<string, unknown>[]) : [])];
      const named = (field: string) => entries.map((e) => e?.[field]).filter((v): v is string => typeof v === 'string');
      // A write's event names its data type in its own name (`invoices.write.successful`).
      const written = /^([A-Za-z-]+)\.write\./.exec(target.eventType)?.[1];
      const hit = await domainFault(
        {
          ...target,
          workId: `delivery:${target.deliveryId}`,
          connectionId: [...named('connectionId'), ...named('dataConnectionId')],
          dataType: [...named('dataType'), ...(written ? [written] : [])],
        },
        ON_DELIVERY,
      );
      if (hit?.action.type !== 'webhook') return undefined;
      if (hit.action.mode === 'duplicate') return { mode: 'duplicate' };
      if (hit.action.mode === 'delay') return { mode: 'delay', delayMs: hit.action.delayMs ?? DEFAULT_DELIVERY_DELAY_MS };
      return { mode: 'reorder', delayMs: hit.action.delayMs ?? DEFAULT_HOLD_MS };
    },
    hold: holdDelivery,
    release: releaseDeliveries,
    takeHeld: takeHeldDelivery,
  };

  const sync: SyncFaults = {
    async beforeRead(target): Promise<SyncFault | undefined> {
      const hit = await domainFault({ ...target, workId: `pull:${target.pullOperationId}` }, ON_SYNC);
      if (hit?.action.type === 'deauthorize')
        return { kind: 'deauthorize', message: `the platform revoked access (the emulator's fault rule ${hit.id})` };
      if (hit?.action.type === 'syncError')
        return { kind: hit.action.status, message: `the emulator's fault rule ${hit.id} failed it with ${hit.action.status}` };
      return undefined;
    },
  };

  const push: PushFaults = {
    async beforeWrite(target): Promise<PushFault | undefined> {
      const hit = await domainFault({ ...target, workId: `push:${target.pushOperationId}` }, ON_WRITE);
      if (hit?.action.type !== 'pushOutcome') return undefined;
      if (hit.action.status === 'TimedOut')
        return {
          status: 'TimedOut',
          errorMessage: `The platform did not complete the write in time (the emulator's fault rule ${hit.id}).`,
        };
      const errors = (hit.action.validation?.errors ?? [{ message: `refused by the emulator's fault rule ${hit.id}` }]).map((e) => ({
        itemId: e.itemId ?? 'body',
        message: e.message,
        validatorName: e.validatorName ?? 'Emulator',
      }));
      return { status: 'Failed', errorMessage: `The platform refused the write: ${errors.map((e) => e.message).join('; ')}.`, errors };
    },
  };

  return {
    /** The rules that fail a sync before it reads (src/syncs/sync-job.ts). */
    sync,
    /** The rules that end a write before it is processed (src/push/push-job.ts). */
    push,
    /** The rules that duplicate, delay or reorder a webhook delivery (src/webhooks/delivery-job.ts). */
    webhooks,

    async create(clientId: string, rule: FaultRule): Promise<Fault> {
      validate(rule);
      // Every request reads the client's rules: a bounded list keeps that cheap.
      if ((await faultCount(db, clientId)) >= MAX_RULES)
        throw new ApiError(409, `Conflict: a client keeps at most ${MAX_RULES} fault rules; delete some (DELETE /emulator/faults) first.`);
      const row = await insertFault(db, {
        id: randomUUID(),
        client_id: clientId,
        created: realTime.now().toISOString(),
        match: JSON.stringify(rule.match),
        action: JSON.stringify(rule.action),
        times: rule.times ?? null,
        probability: rule.probability ?? null,
        seed: rule.seed ?? null,
      });
      return served(row);
    },
    async list(clientId: string): Promise<Fault[]> {
      return (await faultsOf(db, clientId)).map(served);
    },
    async get(clientId: string, id: string): Promise<Fault> {
      const row = await faultOf(db, clientId, id);
      if (!row) throw notFound(`No fault rule was found with ID ${id}`);
      return served(row);
    },
    async delete(clientId: string, id: string): Promise<void> {
      if (!(await deleteFault(db, clientId, id))) throw notFound(`No fault rule was found with ID ${id}`);
    },
    async deleteAll(clientId: string): Promise<void> {
      await db.transaction().execute((trx) => deleteFaults(trx, clientId));
    },
    /** After the guard (the caller is known) and before any handler: the rules fire on requests. */
    install(server: FastifyInstance): void {
      server.addHook('onRequest', onRequest);
      // A lost answer: the request was processed in full; its connection closes instead of carrying the answer.
      server.addHook('onSend', async (request, _reply, payload) => {
        if (!losing.has(request)) return payload;
        // The journal's own onSend, which runs first, kept its entry (status 0: `markLost`).
        request.raw.socket?.destroy();
        return payload;
      });
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;
