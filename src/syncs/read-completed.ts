import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { recordEvent } from '../webhooks/events.js';
import { companyReference } from '../companies/company-reference.js';
import type { PullOperationState } from './pull-operation.js';
import { companyIsSyncing, connectionsReportedBefore, markReported, unreportedOperations } from './read-reports.store.js';

/** A sync as `read.completed` reports it. */
export interface ReportedSync {
  id: string;
  connection_id: string;
  data_type: string;
  status: string;
  requested: string;
  records_modified: number | null;
  doc: string;
}

/**
 * The payload of `read.completed` (and `.initial`) for these syncs: Codat's `{referenceCompany, modifiedFromDate,
 * dataTypes}`, an issue with a link to the sync's log for each that did not complete.
 */
export function readCompletedPayload(
  referenceCompany: Record<string, unknown>,
  syncs: readonly ReportedSync[],
  target: { companyId: string; publicUrl: string; now?: string },
) {
  const logs = (id: string) => `${target.publicUrl}/companies/${target.companyId}/data/history/${id}`;
  return {
    referenceCompany,
    // A fired event about a company with no finished sync yet (src/emulator/fired-events.ts) reports from now.
    modifiedFromDate: syncs.map((op) => op.requested).sort()[0] ?? target.now,
    dataTypes: syncs.map((op) => {
      const state = JSON.parse(op.doc) as PullOperationState;
      return {
        connectionId: op.connection_id,
        dataType: op.data_type,
        recordsModified: (op.records_modified ?? 0) > 0,
        status: op.status,
        issues:
          op.status === 'Complete'
            ? []
            : [{ type: 'error.sync', message: state.errorMessage ?? `The sync ended ${op.status}.`, links: { logs: logs(op.id) } }],
      };
    }),
  };
}

/**
 * Records `read.completed` once the company has no sync left queued or running, covering every sync that
 * finished since the last report (one event for a whole refresh, not one per data type), and
 * `read.completed.initial` too when a connection's first syncs are among them. Call it in the transaction that
 * ends a sync, after the client row is locked: concurrent endings are then serialised and report exactly once.
 */
export async function reportReadIfIdle(
  trx: Kysely<Database>,
  jobs: JobQueue,
  target: { clientId: string; companyId: string; publicUrl: string },
): Promise<void> {
  if (await companyIsSyncing(trx, target.clientId, target.companyId)) return;
  const finished = await unreportedOperations(trx, target.clientId, target.companyId);
  if (finished.length === 0) return;

  const connectionIds = [...new Set(finished.map((op) => op.connection_id))];
  const initial = (await connectionsReportedBefore(trx, target.clientId, connectionIds)) < connectionIds.length;
  await markReported(
    trx,
    target.clientId,
    finished.map((op) => op.id),
  );

  const company = await companyReference(trx, target.clientId, target.companyId, target.publicUrl);
  const payload = readCompletedPayload(company.reference, finished, target);
  for (const eventType of initial ? ['read.completed', 'read.completed.initial'] : ['read.completed']) {
    await recordEvent(trx, jobs, { clientId: target.clientId, companyId: target.companyId, companyTags: company.tags, eventType, payload });
  }
}
