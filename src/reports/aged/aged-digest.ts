import { endianness } from 'node:os';
import { AGED_INPUTS, type AgedPart, type AgedRole, type AgedSide } from './aged-facts.js';
import { compareIds, type IdList } from './id-lists.js';

/*
 * An aged report's part of one data-set version (what a builder collects of that version alone: aged-facts.ts), as
 * bytes kept with the version (its digest, records/version-digests.ts). Made once when a sync writes the version, it
 * spares every first report over that version the reading and decoding of its kept tuples: the report's facts are
 * then the parts of its input versions put together (aged-combine.ts), a merge of sorted ids. Numbers go as the
 * typed arrays they are; each list of ids as the one text it is and where each id ends (read back without a string
 * per id); the rest (counterparties, currencies,
 * amounts with more than two places) as JSON. See docs/lending/aged-reports.md.
 */

/**
 * The digest's format. Raised whenever what a part holds or how a record is collected into it changes: a digest of
 * any other format is read as absent, and the report reads that version's kept tuples instead.
 */
export const AGED_DIGEST_FORMAT = 1;

/** The kind of digest the aged reports keep with a version. */
export const AGED_DIGEST_KIND = 'aged';

/** The report side and role a data type is an input of (each is of one at most), or undefined. */
export function agedInputOf(dataType: string): { side: AgedSide; role: AgedRole } | undefined {
  for (const side of Object.keys(AGED_INPUTS) as AgedSide[])
    for (const [role, type] of Object.entries(AGED_INPUTS[side]) as [AgedRole, string][]) if (type === dataType) return { side, role };
  return undefined;
}

type Numbers = Uint8Array | Int32Array | Float64Array;
const KINDS = { u8: Uint8Array, i32: Int32Array, f64: Float64Array } as const;
type Kind = keyof typeof KINDS;
const kindOf = (array: Numbers): Kind => (array instanceof Uint8Array ? 'u8' : array instanceof Int32Array ? 'i32' : 'f64');

interface Header {
  format: number;
  endian: string;
  side: AgedSide;
  role: AgedRole;
  parties: [string, string | null, number][];
  currencies: string[];
  /** Amounts with more than two places, as exact decimal text, by index (NaN in the numbers). */
  decimals: { amounts: [number, string][]; reductions: [number, string][] };
  /** Each section: its kind and where its bytes are (after the header). */
  sections: Record<string, [Kind | 'latin1' | 'utf16le', number, number]>;
}

/** Amounts as doubles, an amount with more places NaN with its text on the side. */
function amountsOf(values: ArrayLike<number | string>): { numbers: Float64Array; decimals: [number, string][] } {
  const numbers = new Float64Array(values.length);
  const decimals: [number, string][] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'number') numbers[i] = value;
    else {
      numbers[i] = NaN;
      decimals.push([i, value]);
    }
  }
  return { numbers, decimals };
}

/** The part of one version of `role`'s data type, as the bytes of its digest. */
export function encodeAgedPart(part: AgedPart, of: { side: AgedSide; role: AgedRole }): Uint8Array {
  const sections: [string, Numbers | Buffer, Kind | 'latin1' | 'utf16le'][] = [];
  const numbers = (name: string, array: Numbers) => sections.push([name, array, kindOf(array)]);
  const ids = (name: string, list: IdList) => {
    // Record ids are almost always one byte a character; any other text goes as UTF-16, which keeps every string as it is.
    const encoding = /[^\u0000-\u00ff]/.test(list.text) ? 'utf16le' : 'latin1';
    sections.push([`${name}.text`, Buffer.from(list.text, encoding), encoding]);
    numbers(`${name}.ends`, list.ends);
  };
  const a = part.amounts;
  const amounts = amountsOf(a.amount);
  const reductions = amountsOf(part.reductions.amount);
  numbers('amounts.detail', a.detail);
  numbers('amounts.day', a.day);
  numbers('amounts.party', a.party);
  numbers('amounts.currency', a.currency);
  numbers('amounts.amount', amounts.numbers);
  numbers('amounts.slot', a.slot);
  numbers('amounts.ownId', a.ownId);
  ids('ownIds', part.ownIds);
  ids('slots.ids', part.slots.ids);
  numbers('slots.kind', part.slots.kind);
  numbers('slots.order', part.slots.order);
  ids('reductions.makers', part.reductions.makers);
  numbers('reductions.day', part.reductions.day);
  numbers('reductions.amount', reductions.numbers);
  numbers('reductions.source', part.reductions.source);
  numbers('reductions.slot', part.reductions.slot);

  // Each section starts on a multiple of 8 bytes, so that it is read back as a typed array without a copy.
  const placed: Header['sections'] = {};
  let size = 0;
  for (const [name, bytes, kind] of sections) {
    placed[name] = [kind, size, bytes.byteLength];
    size += Math.ceil(bytes.byteLength / 8) * 8;
  }
  const header: Header = {
    format: AGED_DIGEST_FORMAT,
    endian: endianness(),
    side: of.side,
    role: of.role,
    parties: part.parties.map(({ id, name, rank }) => [id, name ?? null, rank]),
    currencies: part.currencies,
    decimals: { amounts: amounts.decimals, reductions: reductions.decimals },
    sections: placed,
  };
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const start = 8 + Math.ceil(head.byteLength / 8) * 8;
  const out = new Uint8Array(start + size);
  new DataView(out.buffer).setUint32(0, head.byteLength, true);
  out.set(head, 8);
  for (const [name, bytes] of sections) out.set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), start + placed[name][1]);
  return out;
}

/**
 * The part a digest holds, or undefined for a digest this code does not read (another format, another machine's byte
 * order, another data type's). `bytes` may be in pieces (as stored); its typed arrays are views of one copy of them.
 */
export function decodeAgedPart(pieces: Uint8Array[], of: { side: AgedSide; role: AgedRole }): AgedPart | undefined {
  try {
    const part = decoded(pieces, of);
    return part && consistent(part) ? part : undefined;
  } catch {
    // Sections that do not fit the bytes: a damaged digest is no digest.
    return undefined;
  }
}

/**
 * Whether a part read back is one a builder could have made: parallel columns of one length, every index in range,
 * every code one there is, each list of ids ending where its text does, the slots' order a permutation by kind then
 * strictly increasing id, and every amount a whole number of cents or an exact decimal. A damaged digest is then read
 * as absent rather than put together into wrong figures or failing the report.
 */
function consistent(part: AgedPart): boolean {
  const a = part.amounts;
  const r = part.reductions;
  const n = a.slot.length;
  const m = r.slot.length;
  const slots = part.slots.kind.length;
  const owns = part.ownIds.ends.length;
  const lengths =
    [a.detail, a.day, a.party, a.currency, a.amount, a.ownId].every((column) => column.length === n) &&
    [r.day, r.amount, r.source, r.makers.ends].every((column) => column.length === m) &&
    part.slots.ids.ends.length === slots &&
    part.slots.order.length === slots;
  if (!lengths || ![part.ownIds, part.slots.ids, r.makers].every(wellEnded)) return false;
  const within = (value: number, end: number) => Number.isInteger(value) && value >= 0 && value < end;
  for (let i = 0; i < n; i++) {
    if (!within(a.detail[i], 3) || !within(a.party[i], part.parties.length) || !within(a.currency[i], part.currencies.length)) return false;
    if (a.slot[i] === -1 ? !within(a.ownId[i], owns) : !within(a.slot[i], slots)) return false;
    if (!collectedAmount(a.amount[i])) return false;
  }
  for (let k = 0; k < m; k++) if (!within(r.slot[k], slots) || !within(r.source[k], 3) || !collectedAmount(r.amount[k])) return false;
  const { kind, order, ids } = part.slots;
  const seen = new Uint8Array(slots);
  for (let i = 0; i < slots; i++) {
    const slot = order[i];
    if (!within(slot, slots) || seen[slot] === 1 || !within(kind[slot], 2)) return false;
    seen[slot] = 1;
    if (i > 0) {
      const before = order[i - 1];
      if (kind[before] > kind[slot] || (kind[before] === kind[slot] && compareIds(ids, before, ids, slot) >= 0)) return false;
    }
  }
  return true;
}

/** Ends that never go back and stop where the text does. */
const wellEnded = (list: IdList) => {
  let end = 0;
  for (const next of list.ends) {
    if (next < end) return false;
    end = next;
  }
  return end === list.text.length;
};

/** A whole number of cents (a double), or an exact decimal's text. */
const collectedAmount = (value: number | string) =>
  typeof value === 'number' ? Number.isSafeInteger(value) : /^-?\d+(\.\d+)?$/.test(value);

function decoded(pieces: Uint8Array[], of: { side: AgedSide; role: AgedRole }): AgedPart | undefined {
  const total = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
  if (total < 8) return undefined;
  // One buffer of its own, so every section sits on its 8-byte boundary (a whole digest in one piece already is one).
  const whole = pieces.length === 1 && pieces[0].byteOffset === 0 && pieces[0].byteLength === pieces[0].buffer.byteLength;
  const bytes = whole ? pieces[0] : new Uint8Array(total);
  if (!whole) {
    let at = 0;
    for (const piece of pieces) {
      bytes.set(piece, at);
      at += piece.byteLength;
    }
  }
  const headLength = new DataView(bytes.buffer as ArrayBuffer).getUint32(0, true);
  if (8 + headLength > total) return undefined;
  const header = JSON.parse(Buffer.from(bytes.buffer as ArrayBuffer, 8, headLength).toString('utf8')) as Header;
  if (header.format !== AGED_DIGEST_FORMAT || header.endian !== endianness() || header.side !== of.side || header.role !== of.role)
    return undefined;
  const start = 8 + Math.ceil(headLength / 8) * 8;
  const numbers = <K extends Kind>(name: string, kind: K): InstanceType<(typeof KINDS)[K]> => {
    const [stored, offset, length] = header.sections[name];
    if (stored !== kind) throw new Error(`an aged digest's ${name} is ${stored}, not ${kind}`);
    const Type = KINDS[kind];
    return new Type(bytes.buffer as ArrayBuffer, start + offset, length / Type.BYTES_PER_ELEMENT) as InstanceType<(typeof KINDS)[K]>;
  };
  // A list of ids stays one text: no string is made per id (id-lists.ts).
  const ids = (name: string): IdList => {
    const [encoding, offset, length] = header.sections[`${name}.text`];
    if (encoding !== 'latin1' && encoding !== 'utf16le') throw new Error(`an aged digest's ${name} is in ${encoding}`);
    return {
      text: Buffer.from(bytes.buffer as ArrayBuffer, start + offset, length).toString(encoding as BufferEncoding),
      ends: numbers(`${name}.ends`, 'i32'),
    };
  };
  // Whole cents stay the doubles they are read as; only amounts with more places need a list of their own.
  const collected = (values: Float64Array, decimals: [number, string][]): ArrayLike<number | string> => {
    if (decimals.length === 0) return values;
    const list: (number | string)[] = Array.from(values);
    for (const [index, text] of decimals) list[index] = text;
    return list;
  };

  return {
    parties: header.parties.map(([id, name, rank]) => (name === null ? { id, rank } : { id, name, rank })),
    currencies: header.currencies,
    amounts: {
      detail: numbers('amounts.detail', 'u8'),
      day: numbers('amounts.day', 'i32'),
      party: numbers('amounts.party', 'i32'),
      currency: numbers('amounts.currency', 'i32'),
      amount: collected(numbers('amounts.amount', 'f64'), header.decimals.amounts),
      slot: numbers('amounts.slot', 'i32'),
      ownId: numbers('amounts.ownId', 'i32'),
    },
    ownIds: ids('ownIds'),
    slots: { ids: ids('slots.ids'), kind: numbers('slots.kind', 'u8'), order: numbers('slots.order', 'i32') },
    reductions: {
      makers: ids('reductions.makers'),
      day: numbers('reductions.day', 'i32'),
      amount: collected(numbers('reductions.amount', 'f64'), header.decimals.reductions),
      source: numbers('reductions.source', 'i32'),
      slot: numbers('reductions.slot', 'i32'),
    },
  };
}
