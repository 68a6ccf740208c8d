import type { Client } from '../../clients/clients.store.js';
import type { DataType } from '../../codat-model/data-types.js';
import { notSynced } from '../report-requests.js';
import { boundedCache } from '../../lib/bounded-cache.js';
import { clockFor } from '../../lib/clock.js';
import type { RecordReader } from '../../records/record-reader.js';
import { AGED_INPUTS, agedFactsBytes, type AgedFacts, type AgedRole as Role, type AgedSide } from './aged-facts.js';
import { AGED_DIGEST_KIND } from './aged-digest.js';
import { agedFactsOfVersions, type AgedVersions } from './aged-inputs.js';
import { agedTable, type AgedTable } from './aged-grouping.js';
import type { AgedReadingThreads } from './aged-reading-threads.js';
import { agingParameters, type AgingParameters } from './aging-periods.js';

/*
 * Aged debtors and aged creditors over a company's synced records (docs/lending/aged-reports.md). The records are read
 * once per set of data-set versions into the report's facts (aged-facts.ts) and kept: a complete version never
 * changes, so a report at any other date or with other periods on the same versions reads no record again.
 */

/** What the reports read of the data sets: each data type's complete versions, or undefined where none has synced. */
export interface SyncedDataSets {
  synced(client: Client, companyId: string, dataTypes: readonly DataType[]): Promise<(number[] | undefined)[]>;
}

export interface AgedReportsDeps {
  dataSets: SyncedDataSets;
  records: Pick<RecordReader, 'eachKept' | 'sizeOf' | 'digestOf' | 'digested'>;
  /** Bytes of facts kept across reports (least recently used dropped first). */
  cacheBytes?: number;
  /** Threads that make the facts of large inputs (none: all read on this thread). */
  threads?: AgedReadingThreads;
  /** From how many records (all inputs) the facts are made on those threads. Default THREAD_FROM. */
  threadFrom?: number;
}

/**
 * Below this many records threads are not worth starting: reading them here takes less than starting two (tens of
 * milliseconds each) and opening their store connections. Millions take seconds either way; on the threads, the two
 * cores share them and this thread keeps answering requests (docs/benchmarks.md).
 */
const THREAD_FROM = 100_000;

/** How many times a report reads its inputs when syncs keep superseding the versions it read (see factsOf). */
const READS = 3;

/** Each report's inputs: the counterparties, the documents, the credit notes and the payments, by data type. */
export const AGED_REPORTS = {
  agedDebtor: { side: 'debtors', ...AGED_INPUTS.debtors },
  agedCreditor: { side: 'creditors', ...AGED_INPUTS.creditors },
} as const satisfies Record<string, { side: AgedSide } & Record<Role, DataType>>;

/** A report's inputs by what they are to it, in the order they are named in a cache key. */
const ROLES = ['counterparties', 'documents', 'credits', 'payments'] as const satisfies readonly Role[];

export type AgedReportName = keyof typeof AGED_REPORTS;

/** The inputs a report cannot be made without; credit notes are read when they have synced (docs/lending). */
const REQUIRED = ['documents', 'counterparties', 'payments'] as const;

/** What a report answers before its rows are written out in Codat's shape. */
export interface AgedReport {
  generated: string;
  parameters: AgingParameters;
  /** Its figures: every period, newest first, and the details each lists (Codat's names, in order), per row. */
  table: AgedTable;
}

export function createAgedReportsService(deps: AgedReportsDeps) {
  const kept = boundedCache<AgedFacts>({ bytes: deps.cacheBytes ?? 512 * 1024 * 1024, valueBytes: agedFactsBytes });
  // Two first requests for the same versions read the records once.
  const reading = new Map<string, Promise<{ facts: AgedFacts; current: boolean }>>();

  /** The versions of each input, or the names of the required inputs that have not synced. */
  async function inputsOf(client: Client, companyId: string, name: AgedReportName) {
    const report = AGED_REPORTS[name];
    const versions = await deps.dataSets.synced(
      client,
      companyId,
      ROLES.map((role) => report[role]),
    );
    const byRole = Object.fromEntries(ROLES.map((role, i) => [role, versions[i]])) as Record<Role, number[] | undefined>;
    const missing = REQUIRED.filter((role) => byRole[role] === undefined).map((role) => report[role]);
    return { byRole, missing };
  }

  /**
   * The facts of the inputs' versions, each version's part from the digest its sync kept with it where it has one
   * (aged-inputs.ts): many records on threads of their own (aged-reading-threads.ts), few here. The facts are the
   * same either way.
   */
  async function makeFacts(report: (typeof AGED_REPORTS)[AgedReportName], byRole: Record<Role, number[] | undefined>): Promise<AgedFacts> {
    const versions: AgedVersions = Object.fromEntries(ROLES.map((role) => [role, byRole[role] ?? []]));
    const all = ROLES.flatMap((role) => byRole[role] ?? []);
    const records = await deps.records.sizeOf(all);
    const digested = await deps.records.digested(all, AGED_DIGEST_KIND);
    if (deps.threads !== undefined && records >= (deps.threadFrom ?? THREAD_FROM))
      return deps.threads.facts(report.side, versions, digested);
    return agedFactsOfVersions(deps.records, report.side, versions, { digested });
  }

  const keyOf = (name: AgedReportName, byRole: Record<Role, number[] | undefined>) =>
    `${name} ${ROLES.map((role) => (byRole[role] ?? []).join(',')).join(' ')}`;

  /**
   * The facts of the versions, and whether they are still the company's current ones once read. A version superseded
   * by a sync while it was read (or while its computation waited its turn) is deleted a while later (syncs/): what was
   * read of it may then be short, so such facts are not kept, and the caller reads the current versions instead.
   */
  async function factsOf(
    client: Client,
    companyId: string,
    name: AgedReportName,
    byRole: Record<Role, number[] | undefined>,
  ): Promise<{ facts: AgedFacts; current: boolean }> {
    const key = keyOf(name, byRole);
    const cached = kept.get(key);
    if (cached) return { facts: cached, current: true };
    let pending = reading.get(key);
    if (!pending) {
      pending = (async () => {
        const facts = await makeFacts(AGED_REPORTS[name], byRole);
        const current = keyOf(name, (await inputsOf(client, companyId, name)).byRole) === key;
        if (current) kept.set(key, facts);
        return { facts, current };
      })().finally(() => reading.delete(key));
      reading.set(key, pending);
    }
    return pending;
  }

  return {
    /** Whether the report can be made now: its required inputs have synced. An unknown company is 404. */
    async available(client: Client, companyId: string, name: AgedReportName): Promise<boolean> {
      return (await inputsOf(client, companyId, name)).missing.length === 0;
    },

    /** The report; 400 naming a bad parameter, 404 for an unknown company, 409 before its inputs have synced. */
    async report(client: Client, companyId: string, name: AgedReportName, query: Record<string, unknown>): Promise<AgedReport> {
      const now = clockFor({ clientId: client.id, companyId }).now();
      const parameters = agingParameters(query, now.toISOString().slice(0, 10));
      let facts: AgedFacts | undefined;
      // Syncs landing one after another could supersede each read: after a few, the last facts read are served.
      for (let attempt = 1; !facts; attempt++) {
        const { byRole, missing } = await inputsOf(client, companyId, name);
        if (missing.length > 0) throw notSynced(name, missing);
        const made = await factsOf(client, companyId, name, byRole);
        if (made.current || attempt === READS) facts = made.facts;
      }
      return {
        generated: now.toISOString(),
        parameters,
        table: agedTable(facts, parameters),
      };
    },
  };
}

export type AgedReportsService = ReturnType<typeof createAgedReportsService>;
