/**
 * Exact decimal amounts as strings (`-1234.5`, `0.10`): bank statement amounts are never passed through binary
 * floats on the way in. Sums are done in scaled BigInts.
 */

/** Unsigned (the sign is read first); at most 12 decimals, which no statement amount comes near. */
const DECIMAL = /^\d+(\.\d{1,12})?$/;
/** Longer text is no amount; the cap also keeps the expressions below linear. */
const MAX_LENGTH = 64;

/**
 * A decimal string from how a file writes it: `decimal` is the decimal separator (`.` or `,`), `thousands`
 * separators are dropped (`1.234,56`, `11'373.94`, `$1,036.47`). Returns undefined when it is not a number.
 */
export function parseDecimal(text: string, decimal: '.' | ',' = '.', thousands: readonly string[] = []): string | undefined {
  if (text.length > MAX_LENGTH) return undefined;
  let t = text.trim();
  let negative = false;
  if (/^\(.*\)$/.test(t)) {
    negative = true;
    t = t.slice(1, -1).trim();
  }
  // A sign and a currency symbol or code around the number, in either order and spaced or not (`+ £1,100.00`,
  // `- 12.34`, `-$5`, `£-5`, `12.50 EUR`, `12.50-`): only one sign, and nothing else.
  t = t.replace(CURRENCY_BEFORE, '');
  // In parentheses the amount is negative already: no sign inside them.
  const lead = negative ? null : /^([+-])\s*/.exec(t);
  if (lead) {
    negative = lead[1] === '-' ? !negative : negative;
    t = t.slice(lead[0].length).replace(CURRENCY_BEFORE, '');
  }
  t = t.replace(CURRENCY_AFTER, '');
  const trail = lead || negative ? null : /\s*([+-])$/.exec(t);
  if (trail) {
    negative = trail[1] === '-' ? !negative : negative;
    t = t.slice(0, -trail[0].length).replace(CURRENCY_AFTER, '');
  }
  for (const sep of thousands) t = t.split(sep).join('');
  if (decimal === ',') t = t.replace(',', '.');
  if (t.endsWith('.')) t = t.slice(0, -1); // `6800,` in MT940
  if (t.startsWith('.')) t = `0${t}`;
  if (!DECIMAL.test(t)) return undefined;
  t = t.replace(/^0+(?=\d)/, '');
  return negative && !/^0(\.0+)?$/.test(t) ? `-${t}` : t;
}

/** A currency symbol or ISO code written before or after a number. */
const CURRENCY_BEFORE = /^(?:[A-Z]{3}|[$€£¥₹₽₺₩₪₫฿₱₦])\s*/;
const CURRENCY_AFTER = /\s*(?:[A-Z]{3}|[$€£¥₹₽₺₩₪₫฿₱₦])$/;

function scaled(value: string, places: number): bigint {
  const [whole, fraction = ''] = value.replace('-', '').split('.');
  const magnitude = BigInt(whole + fraction.padEnd(places, '0').slice(0, places));
  return value.startsWith('-') ? -magnitude : magnitude;
}

function placesOf(values: readonly string[]): number {
  // A loop, not Math.max(...values): a statement can hold a hundred thousand amounts (beyond the argument limit).
  let places = 0;
  for (const v of values) {
    const dot = v.indexOf('.');
    if (dot >= 0 && v.length - dot - 1 > places) places = v.length - dot - 1;
  }
  return places;
}

function format(value: bigint, places: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(places + 1, '0');
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return negative ? `-${text}` : text;
}

/** The exact sum. */
export function addDecimals(values: readonly string[]): string {
  const places = placesOf(values);
  return format(
    values.reduce((sum, v) => sum + scaled(v, places), 0n),
    places,
  );
}

/** Exact comparison: -1, 0 or 1. */
export function compareDecimals(a: string, b: string): number {
  const places = placesOf([a, b]);
  const d = scaled(a, places) - scaled(b, places);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export function negateDecimal(value: string): string {
  if (/^-?0(\.0+)?$/.test(value)) return value.replace('-', '');
  return value.startsWith('-') ? value.slice(1) : `-${value}`;
}

/** An exact decimal as an integer and a count of decimal places: 12.345 is { units: 12345n, places: 3 }. */
export interface ScaledDecimal {
  units: bigint;
  places: number;
}

/** `units` at `places` decimals, moved to `to` decimals (`to` ≥ `places`: exact). */
export function rescale(value: ScaledDecimal, to: number): bigint {
  return value.units * 10n ** BigInt(to - value.places);
}

/** The exact product (its places the sum of both). */
export function multiplyScaled(a: ScaledDecimal, b: ScaledDecimal): ScaledDecimal {
  return { units: a.units * b.units, places: a.places + b.places };
}

/**
 * An exact decimal as the JSON number it is served as: the one rounding there is, and only past the 15 to 17
 * significant digits a number keeps.
 */
export function scaledNumber(units: bigint, places: number): number {
  return Number(format(units, places)) || 0;
}

/**
 * A JSON number written with at most two decimals, as its whole number of cents (80.05 is 8005), read without going
 * through text; undefined for any other. Below 10^13, two such decimals are further apart than neighbouring doubles,
 * so the double nearest k/100 is n only when n is written as k/100.
 */
export function wholeCents(n: number): number | undefined {
  const cents = Math.round(n * 100);
  return Math.abs(n) < 1e13 && cents / 100 === n ? cents + 0 : undefined;
}

/** A JSON number as the exact decimal it is written as: 80.05 is { units: 8005n, places: 2 } (see wholeCents). */
export function scaledFigure(n: number): ScaledDecimal {
  const cents = wholeCents(n);
  if (cents !== undefined) return { units: BigInt(cents), places: 2 };
  const text = plainDecimal(n);
  const dot = text.indexOf('.');
  const places = dot < 0 ? 0 : text.length - dot - 1;
  return { units: scaled(text, places), places };
}

/** `units` at `places` decimals written out (`-12.30` for -1230n at 2). */
export function scaledText(units: bigint, places: number): string {
  return format(units, places);
}

/** A JSON number's shortest decimal form, written out without an exponent (`1e-7` is `0.0000001`). */
export function plainDecimal(n: number): string {
  const text = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const digits = m[2] + (m[3] ?? '');
  const point = m[2].length + Number(m[4]);
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${m[1]}${body}`;
}

/** The exact sum of figures served as JSON numbers (each taken as the decimal it is written as), as a number. */
export function addFigures(a: number, b: number): number {
  return Number(addDecimals([plainDecimal(a), plainDecimal(b)])) || 0;
}
