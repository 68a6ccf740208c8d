import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './schema.js';
import type { DialectName } from './dialect.js';
import * as initial from './migrations/0001-initial.js';

/** Numbered migrations, applied in name order. Each runs on both SQLite and Postgres. */
const migrations: Record<string, { up(db: Kysely<any>, dialect: DialectName): Promise<void> }> = {
  '0001-initial': initial,
};

/** Brings the schema up to date; safe to run from several processes at once (Kysely takes a lock). */
export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(migrations)) out[name] = { up: (d) => m.up(d, dialect) };
      return out;
    },
  };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
