import type { TSchema } from '@sinclair/typebox';
import { sourceRecord, wholeSource } from '../source-kit.js';
import type { DataTypeRead, DataTypeSource, ReadContext, RecordPage, SourceRecord } from '../connector.js';
import type { DataType } from '../../codat-model/data-types.js';
import type { PlatformEndpoint } from '../platform-http.js';
import { squareCall, squareInstant, type SquareObject, type SquarePage, type SquareSettings } from './square-api.js';
import type { Locations, TransactionData } from './square-records.js';
import { merchantEndpoint } from './square-api.js';
import { declaredCursor } from '../platform-runtime.js';
import { SQUARE } from './platform.js';

/**
 * How much earlier than the cursor changes are asked for: the cursor is Square's clock at the start of the previous
 * read (to the second), and a change committed just before an answer may only be visible just after it. A change
 * read twice is harmless; one never read is lost until the next full read.
 */
export const CURSOR_OVERLAP_MS = 60_000;

/**
 * Before any Square data: lists of payments and refunds reach back only a year by `created_at` unless asked
 * (`begin_time`), so a full read, and a delta read of what was updated lately however old, asks from here.
 */
export const SQUARE_EPOCH = '2009-01-01T00:00:00Z';

/** What a read knows of the seller before reading a data type: the API and its locations. */
export interface MerchantScope {
  endpoint: PlatformEndpoint;
  settings: SquareSettings;
  locations: Locations;
  locationIds: string[];
  /** Square's clock at the locations answer, the read's first. */
  date?: string;
}

/** The API and the seller's locations (`GET /v2/locations`, every location, active or not: their sales stay). */
export async function scopeOf(ctx: Pick<ReadContext, 'settings' | 'tokens' | 'signal'>): Promise<MerchantScope & { raw: SquareObject[] }> {
  const endpoint = merchantEndpoint(ctx);
  const answer = await squareCall(endpoint, 'GET', 'locations');
  const raw = Array.isArray(answer.body.locations) ? (answer.body.locations as SquareObject[]) : [];
  const locations = new Map(
    raw.map((l) => [String(l.id), { name: l.name ?? undefined, country: l.country ?? undefined, timezone: l.timezone ?? undefined }]),
  );
  return {
    endpoint,
    settings: ctx.settings as unknown as SquareSettings,
    locations,
    locationIds: raw.map((l) => String(l.id)),
    date: answer.date,
    raw,
  };
}

/**
 * The cursor a read hands on: Square's clock when the read began (the `Date` of its first answer), so a change made
 * while the pages were read, or after, is in the next read whatever this server's clock says; and it moves on when
 * nothing changed. Without a `Date`, the newest `updated_at` seen (and the previous cursor when nothing was seen).
 */
export class CursorClock {
  private started?: string;
  private newest: string | null;

  constructor(previous: string | null) {
    this.newest = previous;
  }

  answered(date: string | undefined): void {
    this.started ??= date;
  }

  saw(modified: string | null): void {
    if (modified && (this.newest === null || modified > this.newest)) this.newest = modified;
  }

  next(): string | null {
    return this.started ?? this.newest;
  }
}

/** The start of a delta read for a cursor: a little earlier (see CURSOR_OVERLAP_MS), in RFC 3339. */
export function updatedSince(cursor: string): string {
  return new Date(Date.parse(cursor) - CURSOR_OVERLAP_MS).toISOString();
}

/** One list or search a data type is read from, and what each of its objects is. */
export interface Stream {
  pages: AsyncIterable<SquarePage>;
  /** The Codat records an object makes: none for one that is not a record of the type (a payment not completed). */
  records(x: SquareObject): TransactionData[];
  /** Whether Square reports the object deleted (catalog `is_deleted`, only in a delta read). */
  deleted?(x: SquareObject): boolean;
}

/** One Codat data type read from Square's lists or searches, in full or by `updated_at` since the cursor. */
export interface ChangeSpec {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  /**
   * The reads, in order: everything when `since` is undefined, else what was updated since (Square's filter).
   * Each must come in an order a change made during the read cannot skip a record in (see docs/connectors/square.md).
   */
  streams(scope: MerchantScope, since: string | undefined): Stream[];
  /**
   * Square does not report deletions of these (customers): every this many syncs the read is in full, and what is
   * missing then is deleted.
   */
  fullEvery?: number;
}

export function changeSource(spec: ChangeSpec): DataTypeSource {
  return {
    dataType: spec.dataType,
    typeName: spec.typeName,
    schema: spec.schema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const scope = await scopeOf(ctx);
      const clock = new CursorClock(ctx.cursor);
      clock.answered(scope.date);
      // Declared with a cursor (`updated_at`): a sync after the first reads what was updated since; `none`: in full.
      const cursor = declaredCursor(SQUARE, spec.dataType);
      const delta =
        cursor !== undefined &&
        ctx.cursor !== null &&
        Number.isFinite(Date.parse(ctx.cursor)) &&
        !(spec.fullEvery && ctx.epoch % spec.fullEvery === 0);
      const since = delta ? updatedSince(ctx.cursor!) : undefined;
      async function* pages(): AsyncIterable<RecordPage> {
        for (const stream of spec.streams(scope, since)) {
          for await (const page of stream.pages) {
            clock.answered(page.date);
            const records: SourceRecord[] = [];
            const deleted: string[] = [];
            for (const x of page.objects) {
              const modified = squareInstant(x.updated_at) ?? null;
              if (cursor) clock.saw(cursor.timeOf(x) ?? null);
              if (delta && stream.deleted?.(x)) deleted.push(String(x.id));
              else for (const r of stream.records(x)) records.push(sourceRecord(r.id, modified, r.data));
            }
            yield delta ? { records, deleted } : { records };
          }
        }
      }
      return {
        mode: delta ? 'delta' : 'full',
        ordered: false,
        pages: pages(),
        nextCursor: () => (cursor !== undefined ? clock.next() : null),
      };
    },
  };
}

/** A data type read whole every time from one or two answers (the locations, the company). */
export function documentSource(spec: {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  records(scope: MerchantScope & { raw: SquareObject[] }): Promise<SourceRecord[]>;
}): DataTypeSource {
  return wholeSource({ ...spec, records: async (ctx) => spec.records(await scopeOf(ctx)) });
}

export { sourceRecord };
