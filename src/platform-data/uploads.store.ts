import type { Kysely, SelectQueryBuilder } from 'kysely';
import { addDays } from '../lib/calendar-date.js';
import type { Database } from '../storage/schema.js';
import type { UploadedItem, UploadsReader } from '../connectors/connector.js';

/** A new upload row: a file (with what the platform's intake read from it) or a processed session's records. */
export interface NewUpload {
  id: string;
  kind: 'file' | 'session' | 'pending';
  batch?: string;
  clientId: string;
  companyId: string;
  connectionId: string;
  fileName: string;
  sourceType: string;
  contentType: string;
  content: Uint8Array;
  uploaded: string;
  format: string | null;
  parsed: string | null;
}

/** Keeps an upload, and the records its platform made of it (AcceptedFile.records) chunk by chunk. */
export async function saveUpload(
  trx: Kysely<Database>,
  upload: NewUpload,
  records?: AsyncIterable<string> | Iterable<string>,
): Promise<void> {
  await trx
    .insertInto('uploads')
    .values({
      id: upload.id,
      kind: upload.kind,
      client_id: upload.clientId,
      company_id: upload.companyId,
      connection_id: upload.connectionId,
      file_name: upload.fileName,
      source_type: upload.sourceType,
      content_type: upload.contentType,
      size: upload.content.byteLength,
      uploaded: upload.uploaded,
      content: upload.content,
      format: upload.format,
      parsed: upload.parsed,
      batch: upload.batch ?? null,
    })
    .execute();
  let chunk = 0;
  for await (const body of records ?? [])
    await trx.insertInto('upload_chunks').values({ upload_id: upload.id, chunk: chunk++, body }).execute();
}

/** Deletes uploads and their records' chunks. */
export async function deleteUploads(trx: Kysely<Database>, where: (q: SelectUploads) => SelectUploads): Promise<void> {
  const ids = (await where(trx.selectFrom('uploads').select('id')).execute()).map((r) => r.id);
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    await trx.deleteFrom('upload_chunks').where('upload_id', 'in', batch).execute();
    await trx.deleteFrom('uploads').where('id', 'in', batch).execute();
  }
}
type SelectUploads = SelectQueryBuilder<Database, 'uploads', { id: string }>;

/** The chunks of an upload's records, one query each (so one chunk at a time is in memory). */
async function* chunksOf(db: Kysely<Database>, uploadId: string): AsyncGenerator<string> {
  for (let chunk = 0; ; chunk++) {
    const row = await db
      .selectFrom('upload_chunks')
      .select('body')
      .where('upload_id', '=', uploadId)
      .where('chunk', '=', chunk)
      .executeTakeFirst();
    if (!row) return;
    yield row.body;
  }
}

/** The latest upload of the connection (its `seq`), or 0: a sync reads the uploads up to it. */
export async function uploadHighWater(db: Kysely<Database>, clientId: string, connectionId: string): Promise<number> {
  const row = await db
    .selectFrom('uploads')
    .select((eb) => eb.fn.max<number | null>('seq').as('seq'))
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('kind', '!=', 'pending')
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** Whether something was uploaded to the connection after `highWater` (a sync that started before it does not hold it). */
export async function uploadedSince(db: Kysely<Database>, clientId: string, connectionId: string, highWater: number): Promise<boolean> {
  const row = await db
    .selectFrom('uploads')
    .select('seq')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('seq', '>', highWater)
    .where('kind', '!=', 'pending')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The connection's uploads up to `upTo`, oldest first, a few at a time (what was read from them, not their bytes). */
export function uploadsReader(db: Kysely<Database>, clientId: string, connectionId: string, upTo: number): UploadsReader {
  return {
    async *list(): AsyncIterable<UploadedItem> {
      let after = 0;
      for (;;) {
        const rows = await db
          .selectFrom('uploads')
          .select(['seq', 'id', 'kind', 'file_name', 'uploaded', 'parsed'])
          .where('client_id', '=', clientId)
          .where('connection_id', '=', connectionId)
          .where('seq', '>', after)
          .where('seq', '<=', upTo)
          .where('kind', '!=', 'pending')
          .orderBy('seq')
          .limit(16)
          .execute();
        for (const row of rows)
          yield {
            kind: row.kind as 'file' | 'session',
            id: row.id,
            name: row.file_name,
            uploaded: row.uploaded,
            parsed: row.parsed,
            records: () => chunksOf(db, row.id),
          };
        if (rows.length < 16) return;
        after = Number(rows[rows.length - 1].seq);
      }
    },
  };
}

/** Deletes a company's uploads (files and processed sessions) and their records' chunks. */
export async function deleteCompanyUploads(trx: Kysely<Database>, clientId: string, companyId: string): Promise<void> {
  await deleteUploads(trx, (q) => q.where('client_id', '=', clientId).where('company_id', '=', companyId));
}

/**
 * What goes of a connection's uploads when the connection is deleted: its upload sessions' records and unconfirmed
 * Link uploads entirely; of its files, what only its syncs read (the parsed records and summaries). The files stay
 * listed with the company.
 */
export async function detachConnectionUploads(trx: Kysely<Database>, clientId: string, connectionId: string): Promise<void> {
  await deleteUploads(trx, (q) =>
    q.where('client_id', '=', clientId).where('connection_id', '=', connectionId).where('kind', 'in', ['session', 'pending']),
  );
  await trx
    .deleteFrom('upload_chunks')
    .where(
      'upload_id',
      'in',
      trx.selectFrom('uploads').select('id').where('client_id', '=', clientId).where('connection_id', '=', connectionId),
    )
    .execute();
  await trx
    .updateTable('uploads')
    .set({ parsed: null })
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .execute();
}

/** Deletes the connection's pending (read on the Link page, not confirmed) uploads: one batch, or all. */
export async function deletePendingUploads(trx: Kysely<Database>, clientId: string, connectionId: string, batch?: string): Promise<void> {
  await deleteUploads(trx, (q) => {
    const pending = q.where('client_id', '=', clientId).where('connection_id', '=', connectionId).where('kind', '=', 'pending');
    return batch === undefined ? pending : pending.where('batch', '=', batch);
  });
}

/** A pending batch's uploads read since `since`, in upload order. */
export function pendingBatch(executor: Kysely<Database>, clientId: string, connectionId: string, batch: string, since: string) {
  return executor
    .selectFrom('uploads')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('kind', '=', 'pending')
    .where('batch', '=', batch)
    .where('uploaded', '>=', since)
    .orderBy('seq')
    .execute();
}

/** Hands an upload's record chunks to another upload (a confirmed pending file keeps the records read from it). */
export async function moveChunks(trx: Kysely<Database>, fromUploadId: string, toUploadId: string): Promise<void> {
  await trx.updateTable('upload_chunks').set({ upload_id: toUploadId }).where('upload_id', '=', fromUploadId).execute();
}

/** The company's uploaded files, oldest first; with `day`, those uploaded on that UTC day. */
export function companyFiles(executor: Kysely<Database>, clientId: string, companyId: string, day?: string) {
  let query = executor
    .selectFrom('uploads')
    .select(['file_name', 'source_type', 'content_type', 'content', 'uploaded'])
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('kind', '=', 'file')
    .orderBy('seq');
  if (day) {
    const next = addDays(day, 1);
    query = query.where('uploaded', '>=', day).where('uploaded', '<', next);
  }
  return query.execute();
}

/** The company's uploaded files without their content, oldest first. */
export function companyFileList(executor: Kysely<Database>, clientId: string, companyId: string) {
  return executor
    .selectFrom('uploads')
    .select(['file_name', 'source_type', 'uploaded'])
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('kind', '=', 'file')
    .orderBy('seq')
    .execute();
}
