const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Turns a query date (`2021-01-28`, `2024-01-01T00:00:00Z`, `2021-11-15T01:00:00-05:00`, ...) into the
 * text form the property is stored in, so that text comparison orders correctly. Undefined if invalid.
 * `instant`: converted to UTC `toISOString()` form; an unqualified time is taken as UTC.
 * `local`: business-local wall time `YYYY-MM-DDTHH:mm:ss`; an offset, if given, is dropped.
 */
export function normalizeDateValue(raw: string, style: 'instant' | 'local'): string | undefined {
  const m = DATE_TIME.exec(raw.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  const probe = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  if (probe.getUTCFullYear() !== +y || probe.getUTCMonth() !== +mo - 1 || probe.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) {
    return undefined;
  }
  if (style === 'local') return `${y}-${mo}-${d}T${h}:${mi}:${s}`;
  const ms = Number(`0.${frac || '0'}`) * 1000;
  let time = probe.getTime() + Math.floor(ms);
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return new Date(time).toISOString();
}
