import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../storage/schema.js';
import { findConnector } from '../connectors/registry.js';
import type { CredentialsStore } from './credentials.store.js';
import { SealedBoxError } from '../secrets/sealed-box.js';

type Revocation = () => Promise<void>;

/**
 * What deleting these connections must revoke at their platforms, read before the deletion (which deletes the
 * credentials): one call per connection whose platform can revoke and that holds credentials. Run the calls
 * after the deletion commits: best effort, each failure logged without its credentials.
 */
export async function revocationsFor(
  db: Kysely<Database>,
  credentials: CredentialsStore | undefined,
  clientId: string,
  rows: readonly { id: string; platform_key: string; settings: string | null }[],
  options: { allowPrivate: boolean; log?: FastifyBaseLogger },
): Promise<Revocation[]> {
  const calls: Revocation[] = [];
  if (!credentials) return calls;
  for (const row of rows) {
    const connector = findConnector(row.platform_key);
    if (!connector?.revoke) continue;
    let held: Record<string, unknown> | null;
    try {
      held = await credentials.load(db, clientId, row.id);
    } catch (err) {
      // Sealed under a key this server no longer has: nothing to revoke with, and the deletion must still go ahead.
      if (!(err instanceof SealedBoxError)) throw err;
      options.log?.warn(
        { connectionId: row.id, platform: row.platform_key, reason: err.message },
        'The credentials of a deleted connection could not be opened to revoke its platform access',
      );
      continue;
    }
    if (!held) continue;
    const settings = row.settings ? (JSON.parse(row.settings) as Record<string, unknown>) : {};
    calls.push(async () => {
      try {
        await connector.revoke!({ settings, credentials: held, allowPrivate: options.allowPrivate });
      } catch (err) {
        options.log?.warn(
          { connectionId: row.id, platform: row.platform_key, reason: (err as Error).message },
          'Revoking the platform access of a deleted connection failed',
        );
      }
    });
  }
  return calls;
}

export async function runRevocations(calls: readonly Revocation[]): Promise<void> {
  await Promise.all(calls.map((call) => call()));
}
