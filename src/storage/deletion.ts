import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What a deletion takes away: a whole company, or one connection of it. */
export interface DeletedScope {
  companyId: string;
  connectionId?: string;
}

/**
 * One module's part of deleting a company or a connection, run inside the deletion's transaction. A parent runs the
 * cascade it was handed (`app.ts` lists the steps, each module exporting its own) and knows none of its children.
 */
export type DeletionStep = (trx: Kysely<Database>, clientId: string, scope: DeletedScope) => Promise<void>;

/** The steps run in order, as one step. */
export function deletionCascade(steps: readonly DeletionStep[]): DeletionStep {
  return async (trx, clientId, scope) => {
    for (const step of steps) await step(trx, clientId, scope);
  };
}
