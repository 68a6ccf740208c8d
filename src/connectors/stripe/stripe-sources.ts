import type { TSchema } from '@sinclair/typebox';
import { sourceRecord, wholeSource } from '../source-kit.js';
import type { DataTypeRead, DataTypeSource, ReadContext, RecordPage, SourceRecord } from '../connector.js';
import type { DataType } from '../../codat-model/data-types.js';
import type { PlatformEndpoint } from '../platform-http.js';
import { listPages, readEndpoint, stripeInstant, type StripeObject, type StripeSettings } from './stripe-api.js';
import { declaredCursorField, fieldAt } from '../platform-runtime.js';
import { STRIPE } from './platform.js';

type Data = Record<string, unknown>;

/** How long Stripe keeps events: a cursor older than this cannot say what changed, and the read is in full. */
export const EVENT_RETENTION_S = 30 * 86_400;
/** Kept off the retention's edge: a cursor this close to 30 days old is read in full rather than trusted. */
const RETENTION_SAFETY_S = 3_600;
/**
 * How much earlier than the cursor changes are asked for: an object or event committed just before an answer may
 * only be listed just after it. A change read twice is harmless; one never read is lost until the next full read.
 */
export const CURSOR_OVERLAP_S = 60;

/** One Codat data type read from one of Stripe's lists. */
export interface ListSpec {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  /** The list (`customers`, `charges`, `balance_transactions`). */
  resource: string;
  /**
   * The events whose `data.object` is a changed object of the list (`customer.updated`); absent for a list whose
   * objects never change once made (balance transactions), read incrementally by `created` alone.
   */
  changes?: readonly string[];
  /** The events that say an object was deleted (`customer.deleted`). */
  deletions?: readonly string[];
  /** The records an object makes; none when it is not one of this type's (a failed charge is no order). */
  map(x: StripeObject, settings: StripeSettings): { id: string; data: Data }[];
}

/**
 * The cursor a read hands on: Stripe's own clock when the read began (the `Date` of its first answer), so whatever
 * is created or changed while the pages are read, or after, is in the next read, whatever this server's clock says.
 * Kept as ISO-8601 UTC.
 */
class StripeClock {
  private started?: number;

  answered(stripeTime: number | undefined): void {
    this.started ??= stripeTime;
  }

  now(): number | undefined {
    return this.started;
  }

  next(): string | null {
    return stripeInstant(this.started) ?? null;
  }
}

/**
 * Whether changes since the cursor can be read by Stripe's clock: its events still reach back to it, and it is not
 * ahead of Stripe's time (a cursor from a clock Stripe's has since fallen behind would ask for nothing yet made).
 */
function reachable(now: number | undefined, since: number): boolean {
  return now !== undefined && now - since <= EVENT_RETENTION_S - RETENTION_SAFETY_S && since - now <= CURSOR_OVERLAP_S;
}

/** What changed in a list since a time: objects created since, then the events since (newest first). */
async function changesSince(
  endpoint: PlatformEndpoint,
  spec: ListSpec,
  field: string,
  since: number,
  clock: StripeClock,
): Promise<{ changed: Map<string, { object: StripeObject; at: number }>; deleted: Set<string> } | undefined> {
  const changed = new Map<string, { object: StripeObject; at: number }>();
  const deleted = new Set<string>();
  // Events are filtered by their own `created`; the list's objects by the declared cursor field.
  const after = String(since - CURSOR_OVERLAP_S);
  const created = { 'created[gte]': after };
  const types = [...(spec.changes ?? []), ...(spec.deletions ?? [])];
  if (types.length > 0) {
    // Events first: their first answer says Stripe's time, and whether it still keeps events back to the cursor.
    const decided = new Set<string>();
    for await (const page of listPages(endpoint, 'events', { ...created, 'types[]': types })) {
      clock.answered(page.stripeTime);
      if (!reachable(clock.now(), since)) return undefined;
      for (const event of page.body) {
        const object = event.data?.object as StripeObject | undefined;
        const id = typeof object?.id === 'string' ? object.id : undefined;
        // Newest first: the first event of an object says its latest state.
        if (!id || decided.has(id)) continue;
        decided.add(id);
        if (spec.deletions?.includes(String(event.type))) deleted.add(id);
        else changed.set(id, { object: object!, at: Number(event.created) });
      }
    }
  }
  for await (const page of listPages(endpoint, spec.resource, { [`${field}[gte]`]: after })) {
    clock.answered(page.stripeTime);
    if (types.length === 0 && !reachable(clock.now(), since)) return undefined;
    for (const object of page.body) {
      const id = String(object.id);
      // The list's is the current state; an object deleted since it was listed is the event's. Its time is the
      // newer of its creation and its newest event's: an object created and then changed since the cursor keeps the
      // change's time, so a record's sourceModifiedDate never goes back.
      if (deleted.has(id)) continue;
      const event = changed.get(id)?.at;
      const created = Number(fieldAt(object, field));
      changed.set(id, { object, at: event !== undefined && Number.isFinite(event) && event > created ? event : created });
    }
  }
  return { changed, deleted };
}

/**
 * Reads a list: in full (every object, page by page), or, with a cursor Stripe's events still reach, only what was
 * created since it (`created[gte]`) and what its events say changed or was deleted. A record's
 * `sourceModifiedDate` is its newest event's time, or its creation's (Stripe keeps no time of last change).
 */
export function listSource(spec: ListSpec): DataTypeSource {
  const records = (x: StripeObject, at: number, settings: StripeSettings) => {
    const modified = stripeInstant(at) ?? null;
    return spec.map(x, settings).map((r) => sourceRecord(r.id, modified, r.data));
  };
  return {
    dataType: spec.dataType,
    typeName: spec.typeName,
    schema: spec.schema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const endpoint = readEndpoint(ctx);
      const settings = ctx.settings as unknown as StripeSettings;
      const clock = new StripeClock();
      // Declared with a cursor (`created`): a sync after the first reads what was made or changed since; `none`: in full.
      const field = declaredCursorField(STRIPE, spec.dataType);
      const since = ctx.cursor === null || field === undefined ? NaN : Math.floor(Date.parse(ctx.cursor) / 1000);
      const changes = Number.isFinite(since) ? await changesSince(endpoint, spec, field!, since, clock) : undefined;
      if (changes) {
        async function* delta(): AsyncIterable<RecordPage> {
          const out: SourceRecord[] = [];
          const deleted = [...changes!.deleted];
          for (const [id, { object, at }] of changes!.changed) {
            const made = records(object, at, settings);
            // A changed object that no longer makes a record (a charge that failed) is gone from this type.
            if (made.length === 0) deleted.push(id);
            out.push(...made);
          }
          yield { records: out, deleted };
        }
        return { mode: 'delta', ordered: false, pages: delta(), nextCursor: () => clock.next() };
      }
      // A full read's clock starts afresh: the events' answer, if any, was older than the pages now read.
      const fullClock = new StripeClock();
      async function* full(): AsyncIterable<RecordPage> {
        for await (const page of listPages(endpoint, spec.resource)) {
          fullClock.answered(page.stripeTime);
          yield { records: page.body.flatMap((x) => records(x, Number(x.created), settings)) };
        }
      }
      return { mode: 'full', ordered: false, pages: full(), nextCursor: () => (field !== undefined ? fullClock.next() : null) };
    },
  };
}

/** A data type made of whole answers read in full each time (the account, products with their prices). */
export function documentSource(spec: {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  records(endpoint: PlatformEndpoint, settings: StripeSettings): Promise<SourceRecord[]>;
}): DataTypeSource {
  return wholeSource({ ...spec, records: (ctx) => spec.records(readEndpoint(ctx), ctx.settings as unknown as StripeSettings) });
}

export { sourceRecord };
