import type { DataType } from '../../../../codat-model/data-types.js';
import type { SourceRecord } from '../../../connector.js';
import type { GeneratedSource, FetchContext } from '../../generated-source.js';
import type { TSchema } from '@sinclair/typebox';
import { CORE_TRACKING, CURRENCIES, REGION_OF_CURRENCY } from '../engine/chart.js';
import { type Ctx, K, contextOf } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { partyName } from '../engine/parties.js';

/**
 * Helpers shared by the record builders. Reference objects (`accountRef`, tracking refs, ...) are built once
 * per company and shared between records: the service serialises each record once and never mutates it.
 */

/** A data type source whose records come from `generate(ctx, epoch)`. */
export function source(
  dataType: DataType,
  typeName: string,
  schema: TSchema,
  generate: (ctx: Ctx, epoch: number) => Iterable<SourceRecord>,
): GeneratedSource {
  return {
    dataType,
    typeName,
    schema,
    fetch(fc: FetchContext): Iterable<SourceRecord> {
      const epoch = Math.max(0, Math.floor(fc.epoch));
      return generate(contextOf(fc.settings), epoch);
    },
  };
}

export function record(id: string, sourceModifiedDate: string, data: Record<string, unknown>): SourceRecord {
  return { id, sourceModifiedDate, data };
}

const epochInstants = new WeakMap<Ctx, string[]>();

/** The instant of sync epoch k: `asOf` + k hours (UTC). */
export function epochInstant(ctx: Ctx, k: number): string {
  let list = epochInstants.get(ctx);
  if (!list) epochInstants.set(ctx, (list = []));
  let s = list[k];
  if (s === undefined) {
    s = new Date(Date.parse(`${ctx.asOf}T00:00:00Z`) + k * 3_600_000).toISOString().replace('.000Z', 'Z');
    if (k < 10_000) list[k] = s;
  }
  return s;
}

/**
 * `sourceModifiedDate`: the latest change epoch if any, else the creation epoch if after the first sync, else
 * a working-hours instant on the creation day (never later than asOf 00:00Z, so later epochs sort after it).
 */
export function modifiedAt(ctx: Ctx, day: number, created: number, changed: number, salt: number): string {
  if (changed > 0) return epochInstant(ctx, changed);
  if (created > 0) return epochInstant(ctx, created);
  if (day >= ctx.asOfDay) return epochInstant(ctx, 0);
  return ctx.cal.stamp(day, salt);
}

export const currencyCode = (cur: number): string => CURRENCIES[cur];

/** One empty array for every empty list in every record (records are serialised, never mutated). */
export const NONE: readonly never[] = Object.freeze([]) as readonly never[];

/**
 * Direct-mapped caches of party refs, reset per company: fixed size (65,536 slots, a few MB at most), which
 * holds every party of all but the largest companies.
 */
const CACHE = 65_536;
const customerKeys = new Int32Array(CACHE).fill(-1);
const customerValues: { id: string; companyName: string }[] = new Array(CACHE);
const supplierKeys = new Int32Array(CACHE).fill(-1);
const supplierValues: { id: string; supplierName: string }[] = new Array(CACHE);
let cacheOwner: Ctx | undefined;

function own(ctx: Ctx): void {
  if (cacheOwner === ctx) return;
  cacheOwner = ctx;
  customerKeys.fill(-1);
  supplierKeys.fill(-1);
}

export function customerRef(ctx: Ctx, c: number, cur: number): { id: string; companyName: string } {
  own(ctx);
  const slot = c & (CACHE - 1);
  if (customerKeys[slot] === c) return customerValues[slot];
  const ref = { id: guid(ctx.seed, K.customers, c), companyName: partyName(ctx.hs, ctx.lc.customers.hk, c, cur) };
  customerKeys[slot] = c;
  customerValues[slot] = ref;
  return ref;
}

export function supplierRef(ctx: Ctx, c: number, cur: number): { id: string; supplierName: string } {
  own(ctx);
  const slot = c & (CACHE - 1);
  if (supplierKeys[slot] === c) return supplierValues[slot];
  const ref = { id: guid(ctx.seed, K.suppliers, c), supplierName: partyName(ctx.hs, ctx.lc.suppliers.hk, c, cur) };
  supplierKeys[slot] = c;
  supplierValues[slot] = ref;
  return ref;
}

export interface LineTracking {
  refs: { id: string; name: string }[];
  object: { categoryRefs: { id: string; name: string }[]; isBilledTo: 'NotApplicable'; isRebilledTo: 'NotApplicable' };
}

const trackingTables = new WeakMap<Ctx, LineTracking[]>();

/** Tracking of a line in department `dept` for a party trading in currency `cur` (region). */
export function lineTracking(ctx: Ctx, dept: number, cur: number): LineTracking {
  let table = trackingTables.get(ctx);
  if (!table) {
    table = [];
    for (let d = 0; d < CORE_TRACKING.length; d++) {
      for (let c = 0; c < CURRENCIES.length; c++) {
        const refs = [ctx.trackingRefs[d], ctx.trackingRefs[REGION_OF_CURRENCY[c]]];
        table.push({ refs, object: { categoryRefs: refs, isBilledTo: 'NotApplicable', isRebilledTo: 'NotApplicable' } });
      }
    }
    trackingTables.set(ctx, table);
  }
  return table[dept * CURRENCIES.length + cur];
}

/** Creation day of reference data that exists before the first document (up to a year before). */
export function setupDay(ctx: Ctx, hk: number, index: number): number {
  return ctx.startDay - 1 - (r3(ctx.hs, hk, index) % 365);
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/**
 * The reference in the books of what the shop paid in (`SP-000002`), by its slot (period, currency and kind: so the
 * numbers have gaps, and a card payout's is odd, banked takings' even).
 */
export const shopReference = (slot: number): string => `SP-${pad(slot + 1, 6)}`;

/** `n` as decimal digits, zero-padded to `width`. */
export function pad(n: number, width: number): string {
  return n < POW10[width] ? String(POW10[width] + n).slice(1) : String(n);
}

export const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
