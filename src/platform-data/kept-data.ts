import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { Connector, WrittenRecord } from '../connectors/connector.js';
import type { DataType } from '../codat-model/data-types.js';
import { lockClient } from '../clients/clients.store.js';
import { loadWritten, writtenSince } from './platform-writes.store.js';
import { uploadHighWater, uploadedSince } from './uploads.store.js';

/**
 * What the service keeps on a platform's behalf, as a sync of one connection's data type reads it: the records
 * written to a Sandbox (`platform_writes`) and a files platform's uploads. A sync takes a mark when it starts, reads
 * what was kept up to it, and asks once, as it completes, whether anything was kept after it (then it syncs again).
 */
export interface KeptMark {
  /** The last write the sync read (`platform_writes.seq`), or null when the type keeps no writes. */
  writesUpTo: number | null;
  /** The last upload the sync reads, or null when the platform's data is not uploads. */
  uploadsUpTo: number | null;
}

export interface KeptTarget {
  clientId: string;
  connectionId: string;
  dataType: string;
}

/**
 * Whether the service keeps this type's writes for the platform (`platform_writes`): a Sandbox does (its write model
 * says `keptByService`); a live platform stores its writes itself, and nothing of it is ever there to load.
 */
export function keepsWritesBesideService(connector: Connector, dataType: string): boolean {
  return connector.writes?.get(dataType as DataType)?.keptByService === true;
}

/** The mark a sync starts from, and the written records it reads up to that mark (ascending by id). */
export async function markKept(
  db: Kysely<Database>,
  connector: Connector,
  target: KeptTarget,
): Promise<{ mark: KeptMark; written: WrittenRecord[] }> {
  let written: WrittenRecord[] = [];
  let writesUpTo: number | null = null;
  if (keepsWritesBesideService(connector, target.dataType)) {
    // The client lock orders this read against writes being stored, so a write is either in this sync or after
    // the mark (and then syncs again).
    ({ written, highWater: writesUpTo } = await db.transaction().execute(async (trx) => {
      await lockClient(trx, target.clientId);
      return loadWritten(trx, target.clientId, target.connectionId, target.dataType);
    }));
  }
  // A platform whose data is uploads reads them up to the latest now; one landing later syncs again.
  const uploadsUpTo = connector.authorization?.kind === 'files' ? await uploadHighWater(db, target.clientId, target.connectionId) : null;
  return { mark: { writesUpTo, uploadsUpTo }, written };
}

/** Whether anything was kept for the target after the mark: a write the platform stored, or a file uploaded. */
export async function keptSince(trx: Kysely<Database>, target: KeptTarget, mark: KeptMark): Promise<boolean> {
  if (mark.writesUpTo !== null && (await writtenSince(trx, target.clientId, target.connectionId, target.dataType, mark.writesUpTo))) {
    return true;
  }
  return mark.uploadsUpTo !== null && (await uploadedSince(trx, target.clientId, target.connectionId, mark.uploadsUpTo));
}
