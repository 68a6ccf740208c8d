import type { TSchema } from '@sinclair/typebox';
import { sourceRecord, wholeSource } from '../source-kit.js';
import type { DataTypeRead, DataTypeSource, ReadContext, RecordPage, SourceRecord } from '../connector.js';
import type { DataType } from '../../codat-model/data-types.js';
import {
  CDC_MAX_ENTITIES,
  QboFault,
  qboCall,
  qboInstant,
  queryPages,
  realmOf,
  type IntuitResponse,
  type QboEntity,
  type QboRealm,
  type QboSettings,
} from './qbo-api.js';
import { realTime } from '../../lib/clock.js';
import { declaredCursor, type DeclaredCursor } from '../platform-runtime.js';
import { QUICKBOOKS } from './platform.js';

type Data = Record<string, unknown>;

/** How far back Change Data Capture reaches: QuickBooks answers `changedSince` older than this with a Fault. */
export const CDC_WINDOW_MS = 30 * 86_400_000;
/** Kept off the window's edge: a cursor this close to 30 days old is read in full rather than refused. */
const WINDOW_SAFETY_MS = 3_600_000;
/**
 * How much earlier than the cursor changes are asked for: QuickBooks' `time` and the `LastUpdatedTime` of a change
 * come from different servers, and a change committed just before an answer may only be visible just after it. A
 * change read twice is harmless; one never read is lost until the next full read.
 */
export const CURSOR_OVERLAP_MS = 60_000;

/** One Codat data type read from one QuickBooks entity. */
export interface EntitySpec {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  /** QuickBooks' entity name, as the query language and change data capture name it (`Invoice`, `Vendor`). */
  entity: string;
  /** Names, accounts and items leave out inactive records unless asked: Codat serves them as Archived. */
  inactiveToo?: boolean;
  map(x: QboEntity, id: string, settings: QboSettings): Data;
}

/** Whether change data capture still reaches back to the cursor (by this server's clock, kept off the edge). */
export function withinCdcWindow(cursor: string, now = realTime.now().getTime()): boolean {
  const at = Date.parse(cursor);
  return Number.isFinite(at) && now - at < CDC_WINDOW_MS - WINDOW_SAFETY_MS;
}

/** `changedSince` for a cursor: a little earlier (see CURSOR_OVERLAP_MS). */
export function changedSince(cursor: string): string {
  return new Date(Date.parse(cursor) - CURSOR_OVERLAP_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * What changed in one entity since the cursor, by change data capture (one request, no paging), with QuickBooks'
 * clock at the answer; undefined when it cannot say: QuickBooks refused the time (older than its window by its
 * clock), or answered the most it answers (more changes than that are left out), so the read must be in full.
 */
async function changesSince(
  realm: QboRealm,
  entity: string,
  cursor: string,
): Promise<{ entities: QboEntity[]; time?: string } | undefined> {
  let answer: IntuitResponse;
  try {
    answer = await qboCall<IntuitResponse>(realm, 'GET', 'cdc', { entities: entity, changedSince: changedSince(cursor) });
  } catch (err) {
    if (err instanceof QboFault && err.status === 400) return undefined;
    throw err;
  }
  const responses = answer.CDCResponse?.flatMap((r) => r.QueryResponse ?? []) ?? [];
  const entities = responses.flatMap((q) => (Array.isArray(q[entity]) ? (q[entity] as QboEntity[]) : []));
  if (entities.length >= CDC_MAX_ENTITIES) return undefined;
  return { entities, time: answer.time };
}

/**
 * The cursor a read hands on: QuickBooks' own clock when the read began (the `time` of its first answer), so a
 * change made while the pages were read, or after, is in the next change data capture, whatever this server's clock
 * says; and it moves on even when nothing changed, so a quiet company stays inside the 30-day window. Without a
 * `time`, the newest `LastUpdatedTime` seen.
 */
class CursorClock {
  private started?: string;
  private newest: string | null;

  constructor(previous: string | null) {
    this.newest = previous;
  }

  answered(time: string | undefined): void {
    this.started ??= qboInstant(time);
  }

  saw(modified: string | null): void {
    if (modified && (this.newest === null || modified > this.newest)) this.newest = modified;
  }

  next(): string | null {
    return this.started ?? this.newest;
  }
}

/**
 * Reads one entity: with a cursor change data capture still reaches, only what changed since it (changed records,
 * and the ids QuickBooks deleted: `status: "Deleted"`); otherwise every record, page by page, with the query
 * language.
 */
export function entitySource(spec: EntitySpec): DataTypeSource {
  const where = spec.inactiveToo ? 'Active IN (true, false)' : undefined;
  const toRecord = (x: QboEntity, settings: QboSettings, clock: CursorClock, cursor: DeclaredCursor | undefined): SourceRecord => {
    const id = String(x.Id);
    const modified = qboInstant(x.MetaData?.LastUpdatedTime) ?? null;
    if (cursor) clock.saw(cursor.timeOf(x) ?? null);
    return sourceRecord(id, modified, spec.map(x, id, settings));
  };
  return {
    dataType: spec.dataType,
    typeName: spec.typeName,
    schema: spec.schema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const realm = realmOf(ctx);
      const settings = ctx.settings as unknown as QboSettings;
      // The declared cursor (`MetaData.LastUpdatedTime`), read when the sync runs: without one, every sync reads the
      // entity in full.
      const cursor = declaredCursor(QUICKBOOKS, spec.dataType);
      const clock = new CursorClock(ctx.cursor);
      const changes =
        cursor !== undefined && ctx.cursor !== null && withinCdcWindow(ctx.cursor)
          ? await changesSince(realm, spec.entity, ctx.cursor)
          : undefined;
      if (changes) {
        clock.answered(changes.time);
        async function* delta(): AsyncIterable<RecordPage> {
          const records: SourceRecord[] = [];
          const deleted: string[] = [];
          for (const x of changes!.entities) {
            if (x.status === 'Deleted') {
              deleted.push(String(x.Id));
              clock.saw(cursor!.timeOf(x) ?? null);
            } else records.push(toRecord(x, settings, clock, cursor));
          }
          yield { records, deleted };
        }
        return { mode: 'delta', ordered: false, pages: delta(), nextCursor: () => clock.next() };
      }
      async function* full(): AsyncIterable<RecordPage> {
        for await (const page of queryPages(realm, spec.entity, { where })) {
          clock.answered(page.time);
          yield { records: page.records.map((x) => toRecord(x, settings, clock, cursor)) };
        }
      }
      return { mode: 'full', ordered: false, pages: full(), nextCursor: () => (cursor !== undefined ? clock.next() : null) };
    },
  };
}

/** A data type made of whole answers read in full each time (the company, tax codes with their rates). */
export function documentSource(spec: {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  records(realm: QboRealm, settings: QboSettings): Promise<SourceRecord[]>;
}): DataTypeSource {
  return wholeSource({ ...spec, records: (ctx) => spec.records(realmOf(ctx), ctx.settings as unknown as QboSettings) });
}

/** Every record of an entity (the small reference lists read whole). */
export async function allOf(realm: QboRealm, entity: string, where?: string): Promise<QboEntity[]> {
  const out: QboEntity[] = [];
  for await (const page of queryPages(realm, entity, { where })) out.push(...page.records);
  return out;
}

export { sourceRecord };
