import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export interface UsageHour {
  /** The UTC hour, `2026-11-25T06`. */
  hour: string;
  requests: number;
  refusals: number;
}

/** Adds tallies to the clients' hourly usage rows (one upsert each: several processes add up). */
export async function addUsage(db: Kysely<Database>, rows: (UsageHour & { clientId: string })[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('client_usage_hours')
    .values(rows.map((r) => ({ client_id: r.clientId, hour: r.hour, requests: r.requests, refusals: r.refusals })))
    .onConflict((oc) =>
      oc.columns(['client_id', 'hour']).doUpdateSet((eb) => ({
        requests: eb('client_usage_hours.requests', '+', eb.ref('excluded.requests')),
        refusals: eb('client_usage_hours.refusals', '+', eb.ref('excluded.refusals')),
      })),
    )
    .execute();
}

/** The client's hours from `fromHour` on, oldest first; hours without requests have no row. */
export async function usageSince(db: Kysely<Database>, clientId: string, fromHour: string): Promise<UsageHour[]> {
  const rows = await db
    .selectFrom('client_usage_hours')
    .select(['hour', 'requests', 'refusals'])
    .where('client_id', '=', clientId)
    .where('hour', '>=', fromHour)
    .orderBy('hour')
    .execute();
  return rows.map((r) => ({ hour: r.hour, requests: Number(r.requests), refusals: Number(r.refusals) }));
}

/** Drops hours older than `beforeHour` (kept: what the usage chart shows, and then some). */
export async function pruneUsage(db: Kysely<Database>, beforeHour: string): Promise<void> {
  await db.deleteFrom('client_usage_hours').where('hour', '<', beforeHour).execute();
}
