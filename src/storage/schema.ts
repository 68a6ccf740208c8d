import type { ClientsTable, ApiKeysTable, RateCountersTable, PortalSessionsTable, ClientUsageHoursTable } from './schema/clients.js';
import type {
  CompaniesTable,
  ConnectionsTable,
  OAuthStatesTable,
  ConnectionCredentialsTable,
  IntegrationsTable,
} from './schema/companies.js';
import type { PullOperationsTable, DataSetsTable } from './schema/syncs.js';
import type { RecordDocsTable, RecordIndexTable, RecordVersionsTable, RecordStagingTable, VersionDigestsTable } from './schema/records.js';
import type { PushOperationsTable, PlatformWritesTable } from './schema/push.js';
import type { WebhookConsumersTable, WebhookEventsTable, WebhookDeliveriesTable } from './schema/webhooks.js';
import type {
  UploadsTable,
  UploadChunksTable,
  UploadConfigurationsTable,
  UploadSessionsTable,
  UploadSessionPagesTable,
} from './schema/uploads.js';
import type { JobWorkersTable, JobsTable, SettingsTable } from './schema/service.js';
import type { AccountCategoriesTable } from './schema/reports.js';
import type {
  EmulatorClocksTable,
  EmulatorClockMembersTable,
  EmulatorTimersTable,
  EmulatorTicketsTable,
  EmulatorRequestsTable,
  EmulatorFaultsTable,
  EmulatorHeldDeliveriesTable,
  EmulatorScenariosTable,
  EmulatorScenarioMarksTable,
  EmulatorFiredWorkTable,
} from './schema/emulator.js';

// Every table type stays importable from here.
export type * from './schema/clients.js';
export type * from './schema/companies.js';
export type * from './schema/syncs.js';
export type * from './schema/records.js';
export type * from './schema/push.js';
export type * from './schema/webhooks.js';
export type * from './schema/uploads.js';
export type * from './schema/service.js';
export type * from './schema/reports.js';
export type * from './schema/emulator.js';

/** Row types of every table, as Kysely sees them. Timestamps are ISO-8601 UTC text on both stores. */
export interface Database {
  clients: ClientsTable;
  api_keys: ApiKeysTable;
  companies: CompaniesTable;
  connections: ConnectionsTable;
  integrations: IntegrationsTable;
  settings: SettingsTable;
  rate_counters: RateCountersTable;
  pull_operations: PullOperationsTable;
  data_sets: DataSetsTable;
  record_docs: RecordDocsTable;
  record_index: RecordIndexTable;
  record_versions: RecordVersionsTable;
  record_staging: RecordStagingTable;
  version_digests: VersionDigestsTable;
  connection_credentials: ConnectionCredentialsTable;
  oauth_states: OAuthStatesTable;
  uploads: UploadsTable;
  upload_chunks: UploadChunksTable;
  upload_configurations: UploadConfigurationsTable;
  upload_sessions: UploadSessionsTable;
  upload_session_pages: UploadSessionPagesTable;
  jobs: JobsTable;
  job_workers: JobWorkersTable;
  push_operations: PushOperationsTable;
  platform_writes: PlatformWritesTable;
  webhook_consumers: WebhookConsumersTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  portal_sessions: PortalSessionsTable;
  client_usage_hours: ClientUsageHoursTable;
  account_categories: AccountCategoriesTable;
  emulator_clocks: EmulatorClocksTable;
  emulator_clock_members: EmulatorClockMembersTable;
  emulator_timers: EmulatorTimersTable;
  emulator_tickets: EmulatorTicketsTable;
  emulator_requests: EmulatorRequestsTable;
  emulator_faults: EmulatorFaultsTable;
  emulator_held_deliveries: EmulatorHeldDeliveriesTable;
  emulator_scenarios: EmulatorScenariosTable;
  emulator_scenario_marks: EmulatorScenarioMarksTable;
  emulator_fired_work: EmulatorFiredWorkTable;
}
