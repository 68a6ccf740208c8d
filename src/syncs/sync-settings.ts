import { Type, type Static } from '@sinclair/typebox';
import { ApiError, validationError } from '../http/api-error.js';
import { DATA_TYPES, type DataType } from '../codat-model/data-types.js';
import { getPlan } from '../clients/plans.js';

const REPORT_TYPES: ReadonlySet<string> = new Set(['balanceSheet', 'profitAndLoss', 'cashFlowStatement']);

const syncSettingFields = {
  dataType: Type.Union(DATA_TYPES.map((d) => Type.Literal(d))),
  fetchOnFirstLink: Type.Boolean({ description: 'Queue this type when a connection is linked.' }),
  syncSchedule: Type.Integer({
    minimum: 0,
    maximum: 8760,
    description: 'Hours between scheduled syncs; 0 for none. Hourly (1) is not allowed on the Free trial.',
  }),
  syncOrder: Type.Integer({ minimum: 0, description: 'Queueing order, lowest first.' }),
  syncFromUtc: Type.Optional(Type.String({ format: 'date-time' })),
  syncFromWindow: Type.Optional(Type.Integer({ minimum: 0 })),
  monthsToSync: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })),
  isLocked: Type.Optional(Type.Boolean()),
};
/** Named for the OpenAPI document; request bodies embed an anonymous copy (validators compile each body on its own). */
export const SyncSetting = Type.Object(syncSettingFields, { $id: 'SyncSetting' });
const SyncSettingBody = Type.Object(syncSettingFields);
export type SyncSetting = Static<typeof SyncSetting>;

export const ClientSyncSettings = Type.Object({
  clientId: Type.String({ format: 'uuid' }),
  settings: Type.Array(SyncSettingBody, { maxItems: DATA_TYPES.length }),
  overridesDefaults: Type.Boolean(),
});

export const CompanySyncSettings = Type.Object({
  companyId: Type.String({ format: 'uuid' }),
  settings: Type.Array(SyncSettingBody, { maxItems: DATA_TYPES.length }),
  overridesDefaults: Type.Optional(Type.Boolean({ default: true })),
});

/** Stored form: the settings a client or company set, and the flag it sent. */
export interface StoredSyncSettings {
  settings: SyncSetting[];
  overridesDefaults: boolean;
}

/** Every data type, fetched on first link and daily; reports keep 24 months. */
export function defaultSyncSettings(): SyncSetting[] {
  return DATA_TYPES.map((dataType, syncOrder) => ({
    dataType,
    fetchOnFirstLink: true,
    syncSchedule: 24,
    syncOrder,
    ...(REPORT_TYPES.has(dataType) ? { monthsToSync: 24 } : {}),
  }));
}

/**
 * The settings in force: defaults, overlaid by the client's, overlaid by the company's, per data type.
 * A list need not name every type; types it leaves out keep the layer below.
 */
export function effectiveSyncSettings(...layers: (StoredSyncSettings | null | undefined)[]): SyncSetting[] {
  const byType = new Map<string, SyncSetting>(defaultSyncSettings().map((s) => [s.dataType, s]));
  for (const layer of layers) for (const setting of layer?.settings ?? []) byType.set(setting.dataType, setting);
  return [...byType.values()].sort((a, b) => a.syncOrder - b.syncOrder || a.dataType.localeCompare(b.dataType));
}

/** Checks a list against the plan and for repeated types; throws the documented errors. */
export function checkSyncSettings(plan: string, settings: SyncSetting[]): void {
  const seen = new Set<DataType>();
  for (const setting of settings) {
    if (seen.has(setting.dataType)) {
      throw validationError('ValidationException: One or more validation errors occurred.', [
        { itemId: 'settings', message: `dataType ${setting.dataType} appears more than once`, validatorName: 'SyncSettings' },
      ]);
    }
    seen.add(setting.dataType);
    if (setting.syncSchedule === 1 && !getPlan(plan).allowsHourlySync) {
      throw new ApiError(402, 'SyncSettingsValidationException: Sync schedule not allowed', {
        code: 'SyncScheduleNotAllowed',
        validation: [
          {
            itemId: 'SyncSettings',
            message: `Sync schedule not allowed. An hourly schedule (${setting.dataType}) is not available on the Free trial`,
            validatorName: 'SyncSettings',
          },
        ],
      });
    }
  }
}

export function parseStoredSettings(text: string | null): StoredSyncSettings | null {
  return text ? (JSON.parse(text) as StoredSyncSettings) : null;
}
