import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './schema.js';
import type { DialectName } from './dialect.js';
import * as initial from './migrations/0001-initial.js';
import * as connectionsAndSyncs from './migrations/0002-connections-and-syncs.js';
import * as writesAndWebhooks from './migrations/0003-writes-and-webhooks.js';
import * as recordLayout from './migrations/0004-record-layout.js';
import * as jobEngine from './migrations/0005-job-engine.js';
import * as sharedRecords from './migrations/0006-shared-records.js';
import * as connectionCredentials from './migrations/0007-connection-credentials.js';
import * as oauthStates from './migrations/0008-oauth-states.js';
import * as uploads from './migrations/0009-uploads.js';
import * as recordDocsLz4 from './migrations/0010-record-docs-lz4.js';
import * as uploadSessionCounters from './migrations/0011-upload-session-counters.js';
import * as tokenRefresh from './migrations/0012-token-refresh.js';
import * as portal from './migrations/0013-portal.js';
import * as keptFields from './migrations/0014-kept-fields.js';
import * as accountCategories from './migrations/0015-account-categories.js';
import * as versionDigests from './migrations/0016-version-digests.js';
import * as emulatorClocks from './migrations/0017-emulator-clocks.js';
import * as repeatableReads from './migrations/0018-repeatable-reads.js';
import * as timerOwners from './migrations/0019-timer-owners.js';
import * as readEpochs from './migrations/0020-read-epochs.js';
import * as emulatorJournalAndFaults from './migrations/0021-emulator-journal-and-faults.js';
import * as emulatorScenarios from './migrations/0022-emulator-scenarios.js';

/** Numbered migrations, applied in name order. Each runs on both SQLite and Postgres. */
const migrations: Record<string, { up(db: Kysely<any>, dialect: DialectName): Promise<void> }> = {
  '0001-initial': initial,
  '0002-connections-and-syncs': connectionsAndSyncs,
  '0003-writes-and-webhooks': writesAndWebhooks,
  '0004-record-layout': recordLayout,
  '0005-job-engine': jobEngine,
  '0006-shared-records': sharedRecords,
  '0007-connection-credentials': connectionCredentials,
  '0008-oauth-states': oauthStates,
  '0009-uploads': uploads,
  '0010-record-docs-lz4': recordDocsLz4,
  '0011-upload-session-counters': uploadSessionCounters,
  '0012-token-refresh': tokenRefresh,
  '0013-portal': portal,
  '0014-kept-fields': keptFields,
  '0015-account-categories': accountCategories,
  '0016-version-digests': versionDigests,
  '0017-emulator-clocks': emulatorClocks,
  '0018-repeatable-reads': repeatableReads,
  '0019-timer-owners': timerOwners,
  '0020-read-epochs': readEpochs,
  '0021-emulator-journal-and-faults': emulatorJournalAndFaults,
  '0022-emulator-scenarios': emulatorScenarios,
};

/** Brings the schema up to date; safe to run from several processes at once (Kysely takes a lock). */
export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  const { error } = await (await migrator(db, dialect)).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/**
 * Brings the schema to the named migration exactly (applying, never undoing: the migrations have no `down`).
 * For tests of a migration over data written in the schema before it.
 */
export async function migrateTo(db: Kysely<Database>, dialect: DialectName, name: string): Promise<void> {
  if (!(name in migrations)) throw new Error(`unknown migration ${JSON.stringify(name)}`);
  const { error } = await (await migrator(db, dialect)).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

async function migrator(db: Kysely<Database>, dialect: DialectName): Promise<Migrator> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(migrations)) out[name] = { up: (d) => m.up(d, dialect) };
      return out;
    },
  };
  // On Postgres, pin Kysely's own tables to the schema this connection works in (the `search_path` of the
  // URL). Unpinned, Kysely's existence check matches its tables in *any* schema of the database, so a second
  // store in another schema of the same database skips creating them and then fails on the missing lock table.
  const migrationTableSchema =
    dialect === 'postgres'
      ? ((await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema ?? undefined)
      : undefined;
  return new Migrator({ db, provider, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
}
