import { randomUUID } from 'node:crypto';
import type { DataType } from '../../../codat-model/data-types.js';
import type { SourceRecord } from '../../connector-reads.js';
import { claimedIdsHeld, type PlatformWrite, type SubmittedWrite, type WriteContext } from '../../connector-writes.js';
import { WriteRefused } from '../../connector-error.js';

/** Who refuses a write the Sandbox cannot take, in the operation's validation items. */
const VALIDATOR = 'Sandbox';

/** Documents the Sandbox will not let go once settled, unless the write forces it. */
const SETTLED_STATUSES = new Set(['Paid', 'Void']);

/**
 * Types paid as they are made: a direct cost's or income's `paymentAllocations` (required, and on every one the
 * Sandbox holds) are its own payment, not payments other records hold, so they do not keep it from being deleted.
 */
const PAID_AS_MADE: ReadonlySet<DataType> = new Set(['directCosts', 'directIncomes']);

type Problem = { itemId: string; message: string; validatorName: string };

/**
 * The accounting Sandbox taking a write of `dataType`, as a platform would: checked against what it holds now (the
 * record written to, the records the write names, the ids a batch asks for, its bookkeeping rules), then every record
 * written handed back for the service to keep (the Sandbox's data is generated; what is written to it is kept beside).
 */
export async function sandboxSubmit(dataType: DataType, ctx: WriteContext, write: PlatformWrite): Promise<SubmittedWrite> {
  const problems: Problem[] = [];
  if (write.operation !== 'Create') {
    const id = write.recordId as string;
    const current = (await ctx.find(dataType, new Set([id])))?.get(id);
    if (!current)
      problems.push({ itemId: 'id', message: `The platform has no ${dataType} record with id ${id}`, validatorName: VALIDATOR });
    else problems.push(...bookkeepingRules(dataType, write, current));
  }
  problems.push(...(await missingReferences(ctx, write.references)));
  if (write.claimed.length > 0) {
    const held = await ctx.find(dataType, new Set(write.claimed.map((c) => c.id)));
    problems.push(...claimedIdsHeld(dataType, write.claimed, (id) => held?.has(id) ?? false, VALIDATOR));
  }
  if (problems.length > 0) throw new WriteRefused(problems);

  if (write.records === null) {
    const recordId = write.recordId as string;
    return { recordId, record: null, kept: [{ recordId, record: null }], changed: [recordId] };
  }
  const kept = write.records.map(({ id, record }) => {
    const recordId = id ?? randomUUID();
    return { recordId, record: { id: recordId, ...record } };
  });
  // A batch is written to its account (the write's record id); any other write is its one record.
  return { recordId: write.recordId ?? kept[0].recordId, record: kept[0].record, kept, changed: kept.map((k) => k.recordId) };
}

/** The write's references the Sandbox does not hold (an id is looked up once per type). */
async function missingReferences(ctx: WriteContext, references: PlatformWrite['references']): Promise<Problem[]> {
  const byType = new Map<DataType, { field: string; id: string }[]>();
  for (const ref of references) byType.set(ref.dataType, [...(byType.get(ref.dataType) ?? []), ref]);
  const problems: Problem[] = [];
  for (const [type, refs] of byType) {
    const found = await ctx.find(type, new Set(refs.map((r) => r.id)));
    if (!found) continue;
    for (const ref of refs) {
      if (!found.has(ref.id)) {
        problems.push({
          itemId: ref.field,
          message: `${ref.field} refers to ${type} record ${ref.id}, which the platform does not have`,
          validatorName: VALIDATOR,
        });
      }
    }
  }
  return problems;
}

/**
 * The Sandbox's bookkeeping rules: settled documents change only when forced; documents with payments allocated to
 * them are never deleted (but direct costs and incomes, whose allocation is their own payment, are: PAID_AS_MADE).
 */
function bookkeepingRules(dataType: DataType, write: PlatformWrite, current: SourceRecord): Problem[] {
  const status = current.data.status;
  if (write.operation === 'Update' && typeof status === 'string' && SETTLED_STATUSES.has(status) && !write.forceUpdate) {
    return [
      {
        itemId: 'status',
        message: `${dataType} record ${write.recordId} is ${status}; send forceUpdate=true to change it`,
        validatorName: VALIDATOR,
      },
    ];
  }
  const allocations = current.data.paymentAllocations;
  if (write.operation === 'Delete' && !PAID_AS_MADE.has(dataType) && Array.isArray(allocations) && allocations.length > 0) {
    return [
      {
        itemId: 'paymentAllocations',
        message: `${dataType} record ${write.recordId} has payments allocated to it; remove them or void it instead`,
        validatorName: VALIDATOR,
      },
    ];
  }
  return [];
}
