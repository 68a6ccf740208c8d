import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from '@sinclair/typebox';
import type { Database } from '../storage/schema.js';
import type { JobEngine } from '../jobs/job-queue.js';
import type { ScheduleScope } from '../syncs/sync-scheduler.js';
import { notFound } from '../http/api-error.js';
import { companyForLink } from '../companies/companies.store.js';
import { OAUTH_CALLBACK_PATH } from '../link/oauth.js';
import { oauthStateOwner } from '../link/oauth-states.store.js';
import { currentBusinessTime, frozenClock, runInBusinessTime, type BusinessTime } from '../lib/clock.js';
import { clockedJobEngine, ticketSignal } from './clocked-jobs.js';
import { CLOCK_ADVANCE_JOB, createClockAdvanceJob } from './clock-advance.js';
import { createClocksService, joinExisting } from './clocks.service.js';
import { registerEmulatorRoutes } from './emulator.routes.js';
import { registerFaultAndJournalRoutes } from './faults.routes.js';
import { createFaults } from './faults.js';
import { createEventFiring } from './fired-events.js';
import { createScenarios } from './scenarios.js';
import { createReset } from './reset.js';
import { registerResetRoutes } from './reset.routes.js';
import type { DeletionStep } from '../storage/deletion.js';
import { createCodatContract, VIOLATION_HEADER, violationHeader, type CodatContract } from './codat-contract.js';
import { deleteScenariosStep } from './scenarios.store.js';
import { deleteFiredWorkStep } from './faults.store.js';
import type { SyncFaults } from '../syncs/sync-job.js';
import { registerEventRoutes } from './events.routes.js';
import type { Client, ClientsStore } from '../clients/clients.store.js';
import { createJournal, DEFAULT_JOURNAL_SIZE } from './journal.js';
import { operationCatalogue } from './operations.js';
import { clockOf, companiesOnAnyClock, deleteClockMembershipStep, governingClock, type ClockRow } from './clocks.store.js';

/** The services the controls drive, made by `app.ts` after the emulator. */
export interface EmulatorServices {
  clients: ClientsStore;
  publicUrl: () => string;
  /** The company as the API serves it (or its 403/404). */
  company: (client: Client, companyId: string) => Promise<string>;
  wakeJobs: () => void;
  /** What deleting a company deletes (app.ts's cascade): the reset deletes every company of the client with it. */
  deleteOwned: DeletionStep;
}

/** The header that puts a company on a clock as it is created. */
export const EMULATOR_CLOCK_HEADER = 'emulator-clock';

/** A request's business time when it creates a company on the clock its `Emulator-Clock` header names. */
interface JoiningTime extends BusinessTime {
  newCompanyJoins?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const timeOf = (clock: ClockRow, companyId?: string): BusinessTime => ({
  clock: frozenClock(clock.frozen_time),
  clockId: clock.id,
  companyId,
});

function companyParam(request: FastifyRequest): string | undefined {
  const companyId = (request.params as Record<string, unknown> | undefined)?.companyId;
  return typeof companyId === 'string' && UUID.test(companyId) ? companyId : undefined;
}

/**
 * The emulator (`EMULATOR=true`, docs/emulator.md): test clocks a client's companies (or the client) run on. Made by
 * `app.ts` only when enabled; without it nothing here runs, `/emulator/…` does not exist and every request and job
 * runs in real time.
 */
export function createEmulator(deps: {
  db: Kysely<Database>;
  engine: JobEngine;
  /** The request journal's bound per client (`EMULATOR_JOURNAL_SIZE`). */
  journalSize?: number;
  /** The key of the journal's request hashes: the deployment's own, so two processes hash a request alike. */
  journalKey: Buffer;
  /** `EMULATOR_VALIDATE=true`: the folder of Codat's files every answer on a path they define is checked against. */
  codatOasDir?: string;
  onError: (err: unknown) => void;
}) {
  const { db } = deps;
  const contract = deps.codatOasDir === undefined ? undefined : createCodatContract(deps.codatOasDir);
  const catalogue = operationCatalogue();
  const journal = createJournal({
    db,
    catalogue,
    size: deps.journalSize ?? DEFAULT_JOURNAL_SIZE,
    hashKey: deps.journalKey,
    companyOf: companyParam,
    onError: deps.onError,
  });
  const faults = createFaults({
    db,
    catalogue,
    journal,
    onError: deps.onError,
  });
  const scenarios = createScenarios(db);
  const signal = ticketSignal();
  const jobs = clockedJobEngine(db, deps.engine, signal, new Set([CLOCK_ADVANCE_JOB]));
  const clocks = createClocksService({ db, jobs: deps.engine, clockedJobs: jobs });

  /** The business time of the client's company (its clock's, else the client's), or of the client; none off clocks. */
  async function timeOfCompany(clientId: string, companyId?: string): Promise<BusinessTime | undefined> {
    const clock = await governingClock(db, clientId, companyId);
    return clock && timeOf(clock, companyId);
  }

  /** The business time of a request of the client: its company's clock on a company's path, else the client's. */
  const businessTime = (request: FastifyRequest, clientId: string) => timeOfCompany(clientId, companyParam(request));

  /** What the pre-handler runs the request in: the guard's choice, a new company's clock, or a public company page's. */
  async function requestTime(request: FastifyRequest): Promise<BusinessTime | undefined> {
    const header = request.headers[EMULATOR_CLOCK_HEADER];
    if (request.client && typeof header === 'string' && request.method === 'POST' && request.routeOptions.url === '/companies') {
      const clock = await clockOf(db, request.client.id, header);
      if (!clock) throw notFound(`No test clock was found with ID ${header}`);
      const joining: JoiningTime = { ...timeOf(clock), newCompanyJoins: clock.id };
      return joining;
    }
    if (request.businessTime || request.client) return request.businessTime;
    // The OAuth callback: the clock of the company whose attempt its `state` names (its tokens expire on that clock).
    if (request.routeOptions.url === OAUTH_CALLBACK_PATH) {
      const state = new URLSearchParams(request.url.split('?')[1] ?? '').get('state') ?? '';
      const owner = await oauthStateOwner(db, state);
      const clock = owner && (await governingClock(db, owner.clientId, owner.companyId));
      return clock && timeOf(clock, owner.companyId);
    }
    // A public page of a company (the hosted Link flow): the company's clock, found from the company.
    const companyId = companyParam(request);
    const company = companyId && (await companyForLink(db, companyId));
    const clock = company ? await governingClock(db, company.client_id, company.id) : undefined;
    return clock && timeOf(clock, companyId);
  }

  return {
    /** The job engine every service queues on: jobs queued on a clock run in its time (clocked-jobs.ts). */
    jobs,
    businessTime,
    /** Job handlers of the emulator's own. */
    handlers: { [CLOCK_ADVANCE_JOB]: createClockAdvanceJob({ db, jobs, signal }) },
    /** Fault rules that act on syncs and writes (handed to their jobs by `app.ts`). */
    faults: {
      // A connection's scenario first, then the client's rules.
      sync: { beforeRead: async (target) => (await scenarios.sync.beforeRead(target)) ?? faults.sync.beforeRead(target) } as SyncFaults,
      push: faults.push,
      webhooks: faults.webhooks,
    },
    /** The scenarios of the Sandboxes' authorization (handed to the connections service by `app.ts`). */
    scenarios: scenarios.authorization,
    /** A deleted company leaves its clock, and takes its connections' scenarios and what fault rules met on its work. */
    deletionSteps: [deleteClockMembershipStep, deleteScenariosStep, deleteFiredWorkStep],

    /** Puts a new company on the clock its creating request named (in the creation's transaction). */
    async companyCreated(trx: Kysely<Database>, clientId: string, companyId: string): Promise<void> {
      const time = currentBusinessTime() as JoiningTime | undefined;
      if (time?.newCompanyJoins) await joinExisting(trx, clientId, companyId, time.newCompanyJoins);
      // What its creation leaves due later (its webhook's retries) is the new company's, and follows its clock.
      if (time?.clockId) time.companyId = companyId;
    },

    /** The companies the real-time schedule serves: all but those on a clock (their clocks' advances serve them). */
    async realTimeSchedule(): Promise<ScheduleScope> {
      return { except: await companiesOnAnyClock(db) };
    },

    /** Before any route: documents the `Emulator-Clock` header of company creation (hooks run on routes added later). */
    installBeforeRoutes(server: FastifyInstance): void {
      journal.installBeforeGuard(server);
      if (contract) installContractCheck(server, contract, deps.onError);
      // Every route's names, for fault rules and the journal.
      server.addHook('onRoute', (route) => {
        const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
        for (const method of [route.method].flat()) {
          if (method === 'HEAD' || method === 'OPTIONS') continue;
          catalogue.addRoute(method, route.url, operationId);
        }
      });
      server.addHook('onRoute', (route) => {
        if (route.url !== '/companies' || route.method !== 'POST' || !route.schema) return;
        route.schema = {
          ...route.schema,
          headers: Type.Object({
            [EMULATOR_CLOCK_HEADER]: Type.Optional(
              Type.String({ format: 'uuid', description: 'Emulator: the test clock the new company runs on (docs/emulator.md).' }),
            ),
          }),
        };
      });
      // Each request runs in its business time from its handler on (the guard chose it once the caller was known).
      server.addHook('preHandler', (request, _reply, done) => {
        requestTime(request).then(
          (time) => {
            journal.noteTime(request, time);
            return time ? runInBusinessTime(time, () => done()) : done();
          },
          (err: Error) => done(err),
        );
      });
    },

    /** After the guard, which knows the caller: the journal notes each request, and fault rules fire on them. */
    installAfterGuard(server: FastifyInstance): void {
      journal.install(server);
      faults.install(server);
    },

    /** The controls, once the services they drive exist. */
    registerRoutes(server: FastifyInstance, services: EmulatorServices): void {
      registerEmulatorRoutes(server, { clocks });
      registerFaultAndJournalRoutes(server, { faults, journal });
      registerResetRoutes(server, { reset: createReset({ db, deleteOwned: services.deleteOwned }) });
      const events = createEventFiring({
        db,
        jobs,
        ...services,
        businessTime: timeOfCompany,
      });
      registerEventRoutes(server, { events });
    },
  };
}

export type Emulator = ReturnType<typeof createEmulator>;

/**
 * Checks each answer on a path Codat's files define against them, and reports a violation in the answer's
 * `Emulator-Contract-Violation` header (its body is left as it is). A streamed answer (a download) is not checked.
 */
function installContractCheck(server: FastifyInstance, contract: CodatContract, onError: (err: unknown) => void): void {
  server.addHook('onSend', async (request, reply, payload) => {
    const routeUrl = request.routeOptions.url;
    if (routeUrl === undefined || !contract.defines(request.method, routeUrl)) return payload;
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined;
    if (body === undefined) return payload;
    try {
      const contentType = reply.getHeader('content-type');
      const problems = contract.check({
        method: request.method,
        routeUrl,
        status: reply.statusCode,
        contentType: typeof contentType === 'string' ? contentType : undefined,
        body,
      });
      if (problems.length > 0) reply.header(VIOLATION_HEADER, violationHeader(problems));
    } catch (err) {
      // The check failing is the emulator's problem, never the answer's.
      onError(err);
    }
    return payload;
  });
}
