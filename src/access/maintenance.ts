import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { readSetting, writeSetting } from './settings.store.js';

const KEY = 'maintenance';

/** Turns maintenance mode on or off for every process sharing the store (the CLI calls this). */
export async function setMaintenance(db: Kysely<Database>, on: boolean): Promise<void> {
  await writeSetting(db, KEY, on ? 'on' : 'off');
}

export async function readMaintenance(db: Kysely<Database>): Promise<boolean> {
  return (await readSetting(db, KEY)) === 'on';
}

/**
 * The maintenance flag as this process sees it: re-read from the store every `intervalMs`, so a change
 * made by `ledgerport maintenance on|off` in another process takes effect within that time, and requests
 * never wait on the read.
 */
export function watchMaintenance(db: Kysely<Database>, intervalMs = 500, onError: (err: unknown) => void = () => {}) {
  let on = false;
  let stopped = false;
  const refresh = async () => {
    try {
      on = await readMaintenance(db);
    } catch (err) {
      onError(err);
    }
  };
  const timer = setInterval(() => void refresh(), intervalMs);
  timer.unref();
  return {
    /** Reads the flag once now (call before serving). */
    refresh,
    isOn: () => on && !stopped,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

export type MaintenanceWatch = ReturnType<typeof watchMaintenance>;

/** Seconds clients are told to wait during maintenance. */
export const MAINTENANCE_RETRY_AFTER_SECONDS = 60;
