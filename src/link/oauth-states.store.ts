import type { Kysely, Selectable } from 'kysely';
import type { Database, OAuthStatesTable } from '../storage/schema.js';

export type OAuthStateRow = Selectable<OAuthStatesTable>;

/*
 * OAuth2 link attempts in progress, keyed by their random `state`. A callback reaches them by that state alone (the
 * platform's redirect carries nothing else): the state is the capability, and the row names its client.
 */

/** Keeps an attempt; expired ones go as new ones start, so the table holds only the last minutes' worth. */
export async function insertOAuthState(db: Kysely<Database>, row: OAuthStateRow, now: string): Promise<void> {
  await db.deleteFrom('oauth_states').where('expires', '<', now).execute();
  await db.insertInto('oauth_states').values(row).execute();
}

/**
 * Takes an attempt once: the row goes as it is read, and a second take of the same state finds nothing. `pending`:
 * whether the row sought is a consent waiting for a choice (true) or an attempt at the platform (false).
 */
export async function takeOAuthState(db: Kysely<Database>, state: string, pending: boolean): Promise<OAuthStateRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('oauth_states')
      .selectAll()
      .where('state', '=', state)
      .where('pending', pending ? 'is not' : 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const taken = await trx.deleteFrom('oauth_states').where('state', '=', state).executeTakeFirst();
    return Number(taken.numDeletedRows) === 1 ? row : undefined;
  });
}

/** A consent waiting for the end user's choice, read without taking it (the page that offers the choice). */
export async function pendingOAuthState(db: Kysely<Database>, state: string): Promise<OAuthStateRow | undefined> {
  return db.selectFrom('oauth_states').selectAll().where('state', '=', state).where('pending', 'is not', null).executeTakeFirst();
}

/** Whose attempt a `state` names (read, not taken): the callback runs in that company's business time. */
export async function oauthStateOwner(db: Kysely<Database>, state: string): Promise<{ clientId: string; companyId: string } | undefined> {
  if (!state) return undefined;
  const row = await db.selectFrom('oauth_states').select(['client_id', 'company_id']).where('state', '=', state).executeTakeFirst();
  return row && { clientId: row.client_id, companyId: row.company_id };
}
