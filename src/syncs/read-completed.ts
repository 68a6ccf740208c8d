import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { recordEvent, referenceCompany } from '../webhooks/events.js';
import type { PullOperationState } from './pull-operation.js';

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
  const running = await trx
    .selectFrom('pull_operations')
    .select('id')
    .where('company_id', '=', target.companyId)
    .where('status', 'in', ['Queued', 'Fetching'])
    .limit(1)
    .executeTakeFirst();
  if (running) return;
  const finished = await trx
    .selectFrom('pull_operations')
    .select(['id', 'connection_id', 'data_type', 'status', 'requested', 'records_modified', 'doc'])
    .where('company_id', '=', target.companyId)
    .where('read_reported', '=', 0)
    .orderBy('seq')
    .execute();
  if (finished.length === 0) return;

  const connectionIds = [...new Set(finished.map((op) => op.connection_id))];
  const reportedBefore = await trx
    .selectFrom('pull_operations')
    .select('connection_id')
    .where('connection_id', 'in', connectionIds)
    .where('read_reported', '=', 1)
    .groupBy('connection_id')
    .execute();
  const initial = reportedBefore.length < connectionIds.length;
  await trx
    .updateTable('pull_operations')
    .set({ read_reported: 1 })
    .where(
      'id',
      'in',
      finished.map((op) => op.id),
    )
    .execute();

  const logs = (id: string) => `${target.publicUrl}/companies/${target.companyId}/data/history/${id}`;
  const payload = {
    referenceCompany: await referenceCompany(trx, target.companyId, target.publicUrl),
    modifiedFromDate: finished.map((op) => op.requested).sort()[0],
    dataTypes: finished.map((op) => {
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
  for (const eventType of initial ? ['read.completed', 'read.completed.initial'] : ['read.completed']) {
    await recordEvent(trx, jobs, { clientId: target.clientId, companyId: target.companyId, eventType, payload });
  }
}
