/**
 * What a process does: `api` answers HTTP requests and queues work but runs no jobs; `worker` runs jobs (syncs,
 * writes, webhook deliveries, the sync schedule) and answers no HTTP; `all` does both (the zero-setup default).
 * Any number of each can share one store. (Apart from serve.ts so the CLI can name them without loading the server.)
 */
export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];
