import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Client } from '../clients/clients.store.js';
import type { ClientsStore } from '../clients/clients.store.js';
import { validationError, notFound } from '../http/api-error.js';
import { clockFor, runInBusinessTime, runInRealTime, type BusinessTime } from '../lib/clock.js';
import { DATA_TYPES, isDataType } from '../codat-model/data-types.js';
import { EVENT_TYPES, isEventType, recordEvent } from '../webhooks/events.js';
import { dailyQuotaOf } from '../access/rate-limiter.js';
import { getPlan } from '../clients/plans.js';
import { connectionById, connectionsOfCompany, type ConnectionRow } from '../connections/connections.store.js';
import { recordConnectionEvent, type ConnectionEventType } from '../connections/connection-events.js';
import { companyReference, companyReferenceReader } from '../companies/company-reference.js';
import { readCompletedPayload, type ReportedSync } from '../syncs/read-completed.js';
import { lastFinishedOperations } from '../syncs/read-reports.store.js';
import { lastSettledPush } from '../push/push.store.js';
import { writeEventPayload, writeEventType } from '../push/write-events.js';
import { confirmedCategories } from '../reports/categories/account-categories.store.js';

/** What `POST /emulator/events` asks for (docs/emulator.md, "Fired events"). */
export interface EventToFire {
  type: string;
  companyId?: string;
  connectionId?: string;
  dataType?: string;
}

/** What firing did: the event recorded (none when no consumer of the client wants it) and its deliveries. */
export interface FiredEvent {
  id: string | null;
  type: string;
  companyId: string | null;
  deliveries: number;
}

const CLIENT_EVENTS = new Set(['client.rateLimit.reached', 'client.rateLimit.reset']);
const CONNECTION_EVENTS = new Set(['connection.created', 'connection.connected', 'connection.disconnected', 'connection.deleted']);
const WRITE_EVENT = /^([A-Za-z]+)\.write\.(successful|unsuccessful)$/;
const DAY_MS = 86_400_000;

const problem = (itemId: string, message: string) =>
  validationError(`ValidationException: ${message}.`, [{ itemId, message, validatorName: 'EmulatorEvent' }]);

/**
 * Events fired on request: each is the event the service itself would record, with its payload made from the
 * company's current state, recorded by `recordEvent` and delivered by the real delivery jobs (signed, retried, in the
 * delivery log). A company's event is recorded in the company's business time.
 */
export function createEventFiring(deps: {
  db: Kysely<Database>;
  jobs: JobQueue;
  clients: ClientsStore;
  publicUrl: () => string;
  /** The company's served Company (Codat's), or the API's 403/404 for a company that is not the client's. */
  company: (client: Client, companyId: string) => Promise<string>;
  /** The business time of the client's company (its clock's), or of the client when no company is given. */
  businessTime: (clientId: string, companyId?: string) => Promise<BusinessTime | undefined>;
  wakeJobs: () => void;
}) {
  const { db } = deps;

  /**
   * What the event is about: the company named, else the named connection's; and the connection named, read once (it
   * must be the client's, and the company's when both are given).
   */
  async function subjectOf(client: Client, input: EventToFire): Promise<{ companyId: string; named?: ConnectionRow }> {
    const named = input.connectionId === undefined ? undefined : await connectionById(db, client.id, input.connectionId);
    if (input.connectionId !== undefined && (!named || (input.companyId !== undefined && named.company_id !== input.companyId)))
      throw notFound(`Data connection ${input.connectionId} not found`);
    const companyId = input.companyId ?? named?.company_id;
    if (companyId === undefined) throw problem('companyId', `${input.type} is about a company: give companyId (or connectionId)`);
    return { companyId, named };
  }

  /** The connection the event is about: the one named, else the company's first. */
  async function connectionFor(
    client: Client,
    subject: { companyId: string; named?: ConnectionRow },
    type: string,
    required: boolean,
  ): Promise<ConnectionRow | undefined> {
    if (subject.named) return subject.named;
    const first = (await connectionsOfCompany(db, client.id, subject.companyId))[0];
    if (!first && required) throw problem('connectionId', `${type} is about a connection, and company ${subject.companyId} has none`);
    return first;
  }

  function checkInput(input: EventToFire): RegExpExecArray | null {
    if (!isEventType(input.type)) throw problem('type', `type must be one of: ${EVENT_TYPES.join(', ')}`);
    const write = WRITE_EVENT.exec(input.type);
    if (input.dataType !== undefined) {
      if (!isDataType(input.dataType)) throw problem('dataType', `dataType must be one of: ${DATA_TYPES.join(', ')}`);
      if (write && write[1] !== input.dataType)
        throw problem('dataType', `dataType ${input.dataType} is not the data type ${input.type} names`);
    }
    return write;
  }

  /**
   * Fires a client-level event: the client's quota as the rate limiter counts it, its window ending at midnight UTC. A
   * client without a quota (the service never sends it these) is told the Free trial's quota for its companies, the
   * quota it would have on that plan.
   */
  async function fireClientEvent(client: Client, type: string): Promise<FiredEvent> {
    const quota =
      (await dailyQuotaOf(deps.clients, client)) ??
      getPlan('free-trial').defaultDailyQuota(await deps.clients.countLinkedCompanies(client.id))!;
    const time = await deps.businessTime(client.id);
    const now = clockFor({ clientId: client.id }).now();
    const expiryDate = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS).toISOString();
    const payload = { dailyQuota: quota, quotaRemaining: type === 'client.rateLimit.reset' ? quota : 0, expiryDate };
    const recorded = await within(time, () =>
      db.transaction().execute((trx) => recordEvent(trx, deps.jobs, { clientId: client.id, eventType: type, companyId: null, payload })),
    );
    deps.wakeJobs();
    return { id: recorded?.eventId ?? null, type, companyId: null, deliveries: recorded?.deliveries ?? 0 };
  }

  return {
    async fire(client: Client, input: EventToFire): Promise<FiredEvent> {
      const write = checkInput(input);
      if (CLIENT_EVENTS.has(input.type)) return fireClientEvent(client, input.type);
      const subject = await subjectOf(client, input);
      const { companyId } = subject;
      // The API's own answer for a company that is not the client's (403) or does not exist (404).
      const served = JSON.parse(await deps.company(client, companyId)) as Record<string, unknown>;
      const time = await deps.businessTime(client.id, companyId);
      const recorded = await within(time, async () => {
        const now = clockFor({ clientId: client.id, companyId }).now().toISOString();
        const publicUrl = deps.publicUrl();
        if (CONNECTION_EVENTS.has(input.type)) {
          const connection = (await connectionFor(client, subject, input.type, true))!;
          const context = { publicUrl, companyReference: companyReferenceReader(deps.publicUrl) };
          return db
            .transaction()
            .execute((trx) => recordConnectionEvent(trx, deps.jobs, input.type as ConnectionEventType, connection, context));
        }
        // Writes and category changes are about a connection; a read may report none.
        const needsConnection = write !== null || input.type === 'accountCategories.updated';
        const connection = input.type.startsWith('company.')
          ? undefined
          : await connectionFor(client, subject, input.type, needsConnection);
        return db.transaction().execute(async (trx) => {
          const company = await companyReference(trx, client.id, companyId, publicUrl);
          const event = { clientId: client.id, companyId, companyTags: company.tags, eventType: input.type };
          if (input.type.startsWith('company.')) {
            // Codat's CompanyDetails: the Company without its connections.
            const { dataConnections: _connections, ...details } = served;
            return recordEvent(trx, deps.jobs, { ...event, payload: details });
          }
          if (input.type === 'read.completed' || input.type === 'read.completed.initial') {
            const syncs = await readSyncs(trx, client.id, companyId, input, connection, now);
            return recordEvent(trx, deps.jobs, {
              ...event,
              payload: readCompletedPayload(company.reference, syncs, { companyId, publicUrl, now }),
            });
          }
          if (input.type === 'accountCategories.updated') {
            const accounts = (await confirmedCategories(trx, client.id, companyId))
              .filter((c) => c.connectionId === connection!.id)
              .map((c) => ({
                accountId: c.accountId,
                accountCategory: { status: 'Confirmed', levels: c.category.split('.').map((levelName) => ({ levelName })) },
              }));
            const payload = { referenceCompany: company.reference, connectionId: connection!.id, modifiedDate: now, accounts };
            return recordEvent(trx, deps.jobs, { ...event, payload });
          }
          // A write's event: the company's last such write to the connection, else one made up for the occasion.
          const [, dataType, outcome] = write!;
          const succeeded = outcome === 'successful';
          // Any connection's write unless one is named; the connection found above is only the made-up write's.
          const last = await lastSettledPush(trx, client.id, { companyId, dataType, connectionId: input.connectionId, succeeded });
          const op = last ?? { id: randomUUID(), operation: 'Create', connection_id: connection!.id, requested: now };
          const settled = {
            referenceCompany: company.reference,
            completed: last?.completed ?? now,
            status: last?.status ?? (succeeded ? 'Success' : 'Failed'),
            recordId: last ? last.record_id : null,
          };
          return recordEvent(trx, deps.jobs, {
            ...event,
            eventType: writeEventType(dataType, succeeded),
            payload: writeEventPayload(op, settled),
          });
        });
      });
      deps.wakeJobs();
      return { id: recorded?.eventId ?? null, type: input.type, companyId, deliveries: recorded?.deliveries ?? 0 };
    },
  };

  /**
   * The syncs a fired `read.completed` reports: the last finished sync of each of the company's data sets (of the
   * connection and data type given); when the data type has none yet, one made up as Complete.
   */
  async function readSyncs(
    trx: Kysely<Database>,
    clientId: string,
    companyId: string,
    input: EventToFire,
    connection: ConnectionRow | undefined,
    now: string,
  ): Promise<ReportedSync[]> {
    const syncs = (await lastFinishedOperations(trx, clientId, companyId)).filter(
      (op) =>
        (input.connectionId === undefined || op.connection_id === input.connectionId) &&
        (input.dataType === undefined || op.data_type === input.dataType),
    );
    if (syncs.length > 0 || input.dataType === undefined) return syncs;
    if (!connection) throw problem('connectionId', `${input.type} is about a connection's data, and company ${companyId} has none`);
    return [
      {
        id: randomUUID(),
        connection_id: connection.id,
        data_type: input.dataType,
        status: 'Complete',
        requested: now,
        records_modified: 0,
        doc: '{}',
      },
    ];
  }
}

/** Runs the work in the given business time, or in real time when there is none (no clock governs the company). */
function within<T>(time: BusinessTime | undefined, work: () => Promise<T>): Promise<T> {
  return time ? runInBusinessTime(time, work) : runInRealTime(work);
}

export type EventFiring = ReturnType<typeof createEventFiring>;
