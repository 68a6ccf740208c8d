/** How the service writes its log: `pretty` (one readable line per event) or `json` (pino's JSON lines). */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Without LOG_FORMAT: readable lines when a person watches a terminal, JSON lines when stdout is a pipe or a
 * file, since that is where a log collector reads them (and what every deployment got before LOG_FORMAT).
 */
export function defaultLogFormat(stdoutIsTty: boolean): LogFormat {
  return stdoutIsTty ? 'pretty' : 'json';
}

/** LOG_FORMAT's value, or the default for this stdout; anything else stops the start. */
export function logFormat(raw: string | undefined, stdoutIsTty: boolean): LogFormat {
  if (raw === undefined || raw === '') return defaultLogFormat(stdoutIsTty);
  if (!(LOG_FORMATS as readonly string[]).includes(raw)) throw new Error(`LOG_FORMAT must be pretty or json, got "${raw}"`);
  return raw as LogFormat;
}
