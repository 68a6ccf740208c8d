import pretty from 'pino-pretty';
import type { LogFormat } from '../lib/log-format.js';

/**
 * Where Fastify's logger writes: undefined keeps pino's JSON lines on stdout; `pretty` formats each event in this
 * thread (a synchronous stream, not a transport's worker thread), so the lines written just before
 * `process.exit` in the shutdown handler are not lost. Redaction happens in pino before the line gets here, so
 * both formats hide the same values.
 */
export function logStream(format: LogFormat, stdoutIsTty = Boolean(process.stdout.isTTY)): { write(line: string): void } | undefined {
  if (format === 'json') return undefined;
  return pretty({
    // Colour codes only where a terminal interprets them, not in a file or a pipe.
    colorize: stdoutIsTty,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    destination: 1,
    sync: true,
  });
}
