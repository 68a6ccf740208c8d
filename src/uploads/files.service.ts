import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { zipSync } from 'fflate';
import { isCalendarDate } from '../lib/calendar-date.js';
import type { Database } from '../storage/schema.js';
import type { ConnectionRow } from '../connections/connections.store.js';
import { ApiError, notFound, validationError } from '../http/api-error.js';
import { createIntakeRunner, FileTooDense, type Intake, type IntakeRunner } from './intake.js';
import type { Client } from '../clients/clients.store.js';
import { lockClient } from '../clients/clients.store.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { ConnectionsService } from '../connections/connections.service.js';
import { findConnector, findPlatform } from '../connectors/registry.js';
import type { IncomingFile } from '../connectors/connector.js';
import { FileRefused } from '../connectors/connector-error.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { queueSyncIfIdle } from '../syncs/sync-queue.js';
import {
  companyFileList,
  companyFiles,
  deletePendingUploads,
  moveChunks,
  pendingBatch,
  saveUpload,
} from '../platform-data/uploads.store.js';
import { connectionOfCompany } from '../connections/connections.store.js';
import { clockFor } from '../lib/clock.js';

export interface FilesDeps {
  db: Kysely<Database>;
  /** Where platforms read uploaded files (a thread of their own by default in the app; on this thread when absent). */
  intake?: IntakeRunner;
  jobs: JobQueue;
  wakeJobs: () => void;
  companies: CompaniesService;
  connections: ConnectionsService;
  now?: () => Date;
}

/** Codat's upload limits: 20 files a request, 10 MB each. */
export const MAX_FILES = 20;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** How long files read on the Link page wait for the end user to confirm them. */
const PENDING_TTL_MS = 60 * 60_000;

/** What Codat takes on a connection that does not read the files: documents, spreadsheets, images. */
const DOCUMENT_TYPES = ['pdf', 'xls', 'xlsx', 'xlsb', 'csv', 'doc', 'docx', 'ppt', 'pptx', 'jpeg', 'jpg', 'png'];

const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xlsb: 'application/vnd.ms-excel.sheet.binary.macroEnabled.12',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

const extensionOf = (name: string) => /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';

/**
 * Files companies upload (`/companies/{companyId}/connections/{connectionId}/files`), listed and downloaded per
 * company. On a platform whose data is uploads (`fstm`) each file is read by the platform's intake, all or none,
 * and the connection's data types sync from every file so far; on any other connection files are kept as Codat
 * keeps them. The files live in the store, and go with their company.
 */
export function createFilesService(deps: FilesDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => clockFor({}).now());
  const intakes = deps.intake ?? createIntakeRunner({ threads: false });

  /** The connection, and what its platform read from the files (undefined: a platform that keeps them as they are). */
  async function read(
    client: Client,
    companyId: string,
    connectionId: string,
    files: IncomingFile[],
    fields: Record<string, string>,
    uploaded: string,
  ): Promise<{ connection: ConnectionRow; intake: Intake | undefined }> {
    const connection = await deps.connections.owned(client, companyId, connectionId);
    if (files.length === 0) {
      throw validationError('ValidationException: No file was uploaded.', [
        { itemId: 'file', message: 'send one or more multipart/form-data parts named file', validatorName: 'FileUpload' },
      ]);
    }
    const connector = findConnector(connection.platform_key);
    if (!connector?.files) {
      const refused = files.filter((f) => !DOCUMENT_TYPES.includes(extensionOf(f.name)));
      if (refused.length > 0) {
        throw validationError(
          'ValidationException: Files of this type cannot be uploaded.',
          refused.map((f) => ({
            itemId: f.name,
            message: `${f.name}: only ${DOCUMENT_TYPES.map((t) => t.toUpperCase()).join(', ')} files can be uploaded`,
            validatorName: 'FileUpload',
          })),
        );
      }
      return { connection, intake: undefined };
    }
    if (connection.status !== 'Linked') {
      throw validationError(`ValidationException: Connection ${connectionId} is ${connection.status}; link it again to upload files.`, [
        { itemId: 'connectionId', message: `the connection is ${connection.status}, not Linked`, validatorName: 'FileUpload' },
      ]);
    }
    let intake: Intake;
    try {
      intake = await intakes.run(connection.platform_key, files, fields, uploaded);
    } catch (err) {
      if (!(err instanceof FileRefused)) throw tooDense(err);
      throw validationError(
        `ValidationException: ${err.items.length === 1 ? 'A problem was' : `${err.items.length} problems were`} found in the upload; nothing was imported.`,
        err.items.map((i) => ({ ...i, validatorName: 'StatementFile' })),
      );
    }
    // Making the records (as they are stored) can run out of room too.
    const records = intake.records;
    return {
      connection,
      intake: {
        ...intake,
        async *records(index: number) {
          try {
            yield* records(index);
          } catch (err) {
            throw tooDense(err);
          }
        },
      },
    };
  }

  /** The intake thread ran out of room reading (or making the records of) an upload: a 413, not a 500. */
  function tooDense(err: unknown): unknown {
    return err instanceof FileTooDense ? new ApiError(413, `PayloadTooLargeException: ${err.message}.`) : err;
  }

  /** Deleted meanwhile (the company or the connection): nothing is kept. */
  async function stillThere(trx: Kysely<Database>, client: Client, companyId: string, connectionId: string): Promise<void> {
    const row = await connectionOfCompany(trx, client.id, companyId, connectionId);
    if (!row) throw notFound(`Data connection ${connectionId} not found`);
  }

  /** Keeps file `index` of an upload, with what the intake read from it (and its records, chunk by chunk). */
  async function keep(
    trx: Kysely<Database>,
    client: Client,
    connection: ConnectionRow,
    files: IncomingFile[],
    index: number,
    intake: Intake | undefined,
    uploaded: string,
    kind: 'file' | 'pending',
    batch?: string,
  ) {
    const file = files[index];
    const accepted = intake?.accepted[index];
    await saveUpload(
      trx,
      {
        id: randomUUID(),
        kind,
        batch,
        clientId: client.id,
        companyId: connection.company_id,
        connectionId: connection.id,
        fileName: file.name,
        sourceType: findPlatform(connection.platform_key)?.sourceType ?? 'Unknown',
        contentType: contentTypeOf(file),
        content: file.bytes,
        uploaded,
        format: accepted?.format ?? null,
        parsed: accepted?.parsed ?? null,
      },
      intake?.records(index),
    );
  }

  /** Syncs every data type of the connection's platform (from all files so far). */
  async function syncAll(trx: Kysely<Database>, client: Client, connection: ConnectionRow) {
    for (const dataType of findConnector(connection.platform_key)?.dataTypes.keys() ?? []) {
      await queueSyncIfIdle(
        trx,
        deps.jobs,
        { clientId: client.id, companyId: connection.company_id, connectionId: connection.id, dataType },
        now(),
      );
    }
  }

  function answer(files: IncomingFile[], intake: Intake | undefined) {
    const accepted = intake?.accepted;
    return {
      files: files.map((f, i) => ({ fileName: f.name, size: f.bytes.byteLength, ...(accepted ? accepted[i].report : {}) })),
      ...(accepted ? { warnings: accepted.flatMap((a) => a.warnings) } : {}),
    };
  }

  return {
    /** The connection an upload is for: 404/403 before its body is read. */
    target: (client: Client, companyId: string, connectionId: string) => deps.connections.owned(client, companyId, connectionId),

    /** Reads the files and keeps them (all or none), then syncs the connection's data types from every file so far. */
    async upload(client: Client, companyId: string, connectionId: string, files: IncomingFile[], fields: Record<string, string>) {
      const uploaded = now().toISOString();
      const { connection, intake } = await read(client, companyId, connectionId, files, fields, uploaded);
      try {
        await db.transaction().execute(async (trx) => {
          await lockClient(trx, client.id, true);
          await stillThere(trx, client, companyId, connectionId);
          for (let i = 0; i < files.length; i++) await keep(trx, client, connection, files, i, intake, uploaded, 'file');
          if (intake) await syncAll(trx, client, connection);
        });
      } finally {
        intake?.release();
      }
      deps.wakeJobs();
      return answer(files, intake);
    },

    /**
     * The Link page's first step: reads statement files and keeps them as a pending batch, shown to the end user
     * before anything is imported (for an hour). It replaces the connection's earlier pending batch.
     */
    async stage(client: Client, companyId: string, connectionId: string, files: IncomingFile[], fields: Record<string, string>) {
      const uploaded = now().toISOString();
      const { connection, intake } = await read(client, companyId, connectionId, files, fields, uploaded);
      if (!intake) throw new Error('only platforms that read their files stage them');
      const batch = randomUUID();
      try {
        await db.transaction().execute(async (trx) => {
          await lockClient(trx, client.id, true);
          await stillThere(trx, client, companyId, connectionId);
          // The page shows one batch at a time: what was read before for this connection (confirmed or not) goes.
          await deletePendingUploads(trx, client.id, connectionId);
          for (let i = 0; i < files.length; i++) await keep(trx, client, connection, files, i, intake, uploaded, 'pending', batch);
        });
      } finally {
        intake.release();
      }
      return { batch, ...answer(files, intake) };
    },

    /** The Link page's second step: the pending batch becomes uploaded files and syncs. False when it is gone. */
    async importStaged(client: Client, companyId: string, connectionId: string, batch: string): Promise<boolean> {
      const connection = await deps.connections.owned(client, companyId, connectionId);
      const imported = await db.transaction().execute(async (trx) => {
        await lockClient(trx, client.id, true);
        const stale = new Date(now().getTime() - PENDING_TTL_MS).toISOString();
        const rows = await pendingBatch(trx, client.id, connectionId, batch, stale);
        if (rows.length === 0) return false;
        // New rows (new seq): a sync that already read past the pending rows' place still sees them as new. Their
        // records were made when the files were read (stamped then); they move to the new rows.
        for (const row of rows) {
          const id = randomUUID();
          await saveUpload(trx, {
            id,
            kind: 'file',
            clientId: client.id,
            companyId,
            connectionId,
            fileName: row.file_name,
            sourceType: row.source_type,
            contentType: row.content_type,
            content: new Uint8Array(row.content),
            uploaded: row.uploaded,
            format: row.format,
            parsed: row.parsed,
          });
          await moveChunks(trx, row.id, id);
        }
        await deletePendingUploads(trx, client.id, connectionId, batch);
        await syncAll(trx, client, connection);
        return true;
      });
      deps.wakeJobs();
      return imported;
    },

    async discardStaged(client: Client, companyId: string, connectionId: string, batch: string): Promise<void> {
      await deps.connections.owned(client, companyId, connectionId);
      await db.transaction().execute((trx) => deletePendingUploads(trx, client.id, connectionId, batch));
    },

    /** Codat's `Files`: every file uploaded for the company, oldest first. */
    async list(client: Client, companyId: string) {
      await deps.companies.owned(client, companyId);
      const rows = await companyFileList(db, client.id, companyId);
      return rows.map((r) => ({ fileName: r.file_name, displayName: null, sourceType: r.source_type, uploaded: r.uploaded }));
    },

    /**
     * The company's files (those uploaded on `date`'s UTC day, when given): one file as itself, several as one
     * zip. Throws 404 when there is none.
     */
    async download(
      client: Client,
      companyId: string,
      date: string | undefined,
    ): Promise<{ name: string; contentType: string; bytes: Uint8Array }> {
      await deps.companies.owned(client, companyId);
      let day: string | undefined;
      if (date !== undefined) {
        // A day (`2024-05-01`) or an instant with its zone (`2024-05-01T23:00:00-05:00`): the UTC day it falls on.
        const form = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(date);
        // Without a zone, UTC (as Codat's DateTime), not the server's local time.
        // Its calendar day must be one (`2024-02-30T00:00:00Z` is no instant, not 1 March).
        const parsed =
          form && isCalendarDate(date.slice(0, 10))
            ? new Date(date.length === 10 ? `${date}T00:00:00Z` : form[4] ? date : `${date}Z`)
            : new Date(NaN);
        if (Number.isNaN(parsed.getTime())) {
          throw validationError('ValidationException: One or more validation errors occurred.', [
            { itemId: 'date', message: 'date must be a date, e.g. 2024-05-01 or 2024-05-01T00:00:00Z', validatorName: 'DownloadFiles' },
          ]);
        }
        day = parsed.toISOString().slice(0, 10);
      }
      const rows = await companyFiles(db, client.id, companyId, day);
      if (rows.length === 0)
        throw notFound(
          day ? `No files were uploaded for company ${companyId} on ${day}` : `No files were uploaded for company ${companyId}`,
        );
      if (rows.length === 1) return { name: rows[0].file_name, contentType: rows[0].content_type, bytes: new Uint8Array(rows[0].content) };
      const entries: Record<string, Uint8Array> = {};
      for (const row of rows) entries[uniqueName(entries, row.file_name)] = new Uint8Array(row.content);
      return { name: `${companyId}-files.zip`, contentType: 'application/zip', bytes: zipSync(entries, { level: 6 }) };
    },
  };
}

function contentTypeOf(file: IncomingFile): string {
  const known = CONTENT_TYPES[extensionOf(file.name)];
  if (known) return known;
  return file.contentType && /^[\w.+-]+\/[\w.+-]+$/.test(file.contentType) ? file.contentType : 'application/octet-stream';
}

/** `statement.sta`, then `statement (2).sta`, ...: two uploads of one name both go in the zip. */
function uniqueName(taken: Record<string, unknown>, name: string): string {
  const safe = name.replace(/[\\/]/g, '_') || 'file';
  if (!(safe in taken)) return safe;
  const dot = safe.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
  for (let n = 2; ; n++) if (!(`${stem} (${n})${ext}` in taken)) return `${stem} (${n})${ext}`;
}

export type FilesService = ReturnType<typeof createFilesService>;
