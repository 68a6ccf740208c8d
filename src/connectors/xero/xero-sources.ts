import type { TSchema } from '@sinclair/typebox';
import { sourceRecord, wholeSource } from '../source-kit.js';
import type { DataTypeRead, DataTypeSource, ReadContext, RecordPage, SourceRecord } from '../connector.js';
import type { DataType } from '../../codat-model/data-types.js';
import {
  EVERYTHING_SINCE,
  sinceCursor,
  tenantEndpoint,
  XERO_HOOKS,
  xeroGet,
  xeroInstant,
  xeroPages,
  type XeroSettings,
} from './xero-api.js';
import type { XeroRecord } from './xero-records.js';
import { ConnectorError } from '../connector-error.js';
import { declaredCursor, declaredCursorField, fieldAt } from '../platform-runtime.js';
import { XERO } from './platform.js';

type Data = Record<string, unknown>;

/** One Codat data type read from one of Xero's collections. */
export interface CollectionSpec {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  /** The endpoint (`Invoices`) and the array its answer holds (`Invoices`). */
  resource: string;
  collection: string;
  idField: string;
  /** Xero's filter, e.g. `Type=="ACCREC"`. */
  where?: string;
  /** Archived records too (contacts, accounts): Codat serves them with status Archived. */
  includeArchived?: boolean;
  /** Paged with `page` (as many a page as the declaration says); the small reference collections come whole. */
  paged: boolean;
  /** Records of the collection that belong to this data type (e.g. contacts that are customers). */
  keep?: (x: XeroRecord) => boolean;
  /** Records gone at Xero (`DELETED`): left out of a full read, a deletion in a delta. */
  gone?: (x: XeroRecord) => boolean;
  map(x: XeroRecord, settings: XeroSettings): Data;
}

/**
 * Reads a collection: in full (every live record), or, with a cursor, what changed since it (`If-Modified-Since`):
 * changed records and the ids of those deleted. The cursor handed on is Xero's own clock when the read's first page
 * answered (`DateTimeUTC`): whatever changes after that, even while the later pages are read, is newer than it and
 * read by the next sync, and a clock difference between Xero and this server loses nothing.
 */
export function collectionSource(spec: CollectionSpec): DataTypeSource {
  return {
    dataType: spec.dataType,
    typeName: spec.typeName,
    schema: spec.schema,
    read(ctx: ReadContext): DataTypeRead {
      const endpoint = tenantEndpoint(ctx);
      // Declared with a cursor (Xero's `UpdatedDateUTC`): read with `If-Modified-Since` from the last sync's newest
      // change; declared `none`: always in full.
      const cursor = declaredCursor(XERO, spec.dataType, XERO_HOOKS);
      const delta = cursor !== undefined && ctx.cursor !== null;
      let started: string | null = null;
      let newest: string | null = null;
      async function* pages(): AsyncIterable<RecordPage> {
        const seen = new Set<string>();
        const source = xeroPages<XeroRecord>(endpoint, spec.resource, spec.collection, {
          since: delta ? sinceCursor(ctx.cursor!) : EVERYTHING_SINCE,
          idField: spec.idField,
          where: spec.where,
          includeArchived: spec.includeArchived,
          paged: spec.paged,
        });
        for await (const page of source) {
          started ??= page.serverTime ?? null;
          const records: SourceRecord[] = [];
          const deleted: string[] = [];
          for (const x of page.records) {
            const id = String(x[spec.idField]);
            // A record created mid-read pushes one already read onto this page.
            if (seen.has(id)) continue;
            seen.add(id);
            const modified = xeroInstant(x.UpdatedDateUTC) ?? null;
            const changed = cursor?.timeOf(x);
            if (changed && (newest === null || changed > newest)) newest = changed;
            if (spec.gone?.(x) || (spec.keep && !spec.keep(x))) {
              if (delta) deleted.push(id);
              continue;
            }
            records.push(sourceRecord(id, modified, spec.map(x, ctx.settings as unknown as XeroSettings)));
          }
          yield delta ? { records, deleted } : { records };
        }
      }
      // Without Xero's time (an answer lacking DateTimeUTC), the newest change seen is the next best bound.
      return {
        mode: delta ? 'delta' : 'full',
        ordered: false,
        pages: pages(),
        nextCursor: () => (cursor !== undefined ? (started ?? newest ?? ctx.cursor) : null),
      };
    },
  };
}

/** A data type made of one answer that is not a paged collection (the organisation, tracking categories, a report). */
export function documentSource(spec: {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  records(get: <T>(path: string) => Promise<T>, settings: XeroSettings): Promise<{ id: string; modified?: string | null; data: Data }[]>;
}): DataTypeSource {
  return wholeSource({
    ...spec,
    async records(ctx) {
      const endpoint = tenantEndpoint(ctx);
      const list = await spec.records((path) => xeroGet(endpoint, path), ctx.settings as unknown as XeroSettings);
      return list.map((r) => sourceRecord(r.id, r.modified ?? null, r.data));
    },
  });
}

/**
 * Xero's journals (its general ledger), paged by journal number: `/Journals?offset=n` answers up to 100 journals
 * numbered above n. A journal never changes once written (a correction is a new, reversing journal), so the
 * cursor is the highest journal number read, and a sync after the first reads only the journals after it.
 */
export function journalSource(spec: {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  map(journal: XeroRecord): Data;
}): DataTypeSource {
  return {
    dataType: spec.dataType,
    typeName: spec.typeName,
    schema: spec.schema,
    read(ctx: ReadContext): DataTypeRead {
      const endpoint = tenantEndpoint(ctx);
      // Declared with a cursor (the journal number): a sync after the first reads the journals after it; declared
      // `none`: every journal, every time. Xero's pages are by journal number either way.
      const field = declaredCursorField(XERO, spec.dataType);
      const start = field !== undefined && ctx.cursor !== null && /^\d+$/.test(ctx.cursor) ? Number(ctx.cursor) : null;
      let offset = start ?? 0;
      let newest = start ?? 0;
      async function* pages(): AsyncIterable<RecordPage> {
        for (;;) {
          const answer = await xeroGet<{ Journals?: XeroRecord[] }>(endpoint, `Journals?offset=${offset}`);
          if (answer.Journals !== undefined && !Array.isArray(answer.Journals))
            throw new ConnectorError('unavailable', 'Xero answered /Journals without a list of journals');
          const journals = answer.Journals ?? [];
          const records = journals.map((j) => {
            const modified = xeroInstant(j.CreatedDateUTC) ?? null;
            return sourceRecord(String(j.JournalID), modified, spec.map(j));
          });
          for (const j of journals) {
            offset = Math.max(offset, Number(j.JournalNumber) || 0);
            if (field) newest = Math.max(newest, Number(fieldAt(j, field)) || 0);
          }
          yield start === null ? { records } : { records, deleted: [] };
          if (journals.length < 100) return;
        }
      }
      return {
        mode: start === null ? 'full' : 'delta',
        ordered: false,
        pages: pages(),
        nextCursor: () => (field !== undefined ? String(newest) : null),
      };
    },
  };
}

/**
 * One data type read from several of Xero's collections, one after another, in full every sync (account
 * transactions: the payments and the bank transactions that moved money through a bank account).
 */
export function collectionsSource(spec: {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  parts: Omit<CollectionSpec, 'dataType' | 'typeName' | 'schema'>[];
}): DataTypeSource {
  const sources = spec.parts.map((part) =>
    collectionSource({ ...part, dataType: spec.dataType, typeName: spec.typeName, schema: spec.schema }),
  );
  return {
    dataType: spec.dataType,
    typeName: spec.typeName,
    schema: spec.schema,
    read(ctx: ReadContext): DataTypeRead {
      async function* pages(): AsyncIterable<RecordPage> {
        for (const source of sources) yield* (await source.read(ctx)).pages;
      }
      return { mode: 'full', ordered: false, pages: pages(), nextCursor: () => null };
    },
  };
}
