import type { RecordReader } from '../../records/record-reader.js';
import { KEPT_FIELDS } from '../../records/record-fields.js';
import { AGED_INPUTS, agedFactsBuilder, type AgedFacts, type AgedPart, type AgedRole, type AgedSide } from './aged-facts.js';
import { AGED_DIGEST_KIND, agedInputOf, decodeAgedPart, encodeAgedPart } from './aged-digest.js';
import { combineParts } from './aged-combine.js';

/*
 * An aged report's inputs read into its facts, on whichever thread calls (aged-reading-thread.ts, or the service for
 * few records): each input version's part, from the digest kept with the version when it has one (aged-digest.ts),
 * else from the version's kept tuples; then the parts put together (aged-combine.ts) in one order, whoever read which.
 */

/** What reading the inputs needs of the store. */
export type AgedInputReader = Pick<RecordReader, 'eachKept' | 'digestOf'>;

/** A report's input versions, by role. */
export type AgedVersions = Partial<Record<AgedRole, number[]>>;

/**
 * The order parts are put together in, each role's versions as listed: the order one builder reading every record
 * would read them in, so that which record names a counterparty never depends on who read what (aged-facts.ts, NAMED_BY).
 */
export const READING_ORDER = ['counterparties', 'payments', 'documents', 'credits'] as const satisfies readonly AgedRole[];

const METHOD = { counterparties: 'counterparty', documents: 'document', credits: 'credit', payments: 'payment' } as const;

/** Every input version with its role, in reading order. */
export function inputsInOrder(versions: AgedVersions): { role: AgedRole; version: number }[] {
  return READING_ORDER.flatMap((role) => (versions[role] ?? []).map((version) => ({ role, version })));
}

/** The part of one version, read from its kept tuples. */
export async function partFromRecords(
  reader: Pick<RecordReader, 'eachKept'>,
  side: AgedSide,
  role: AgedRole,
  version: number,
): Promise<AgedPart> {
  const builder = agedFactsBuilder(side);
  await reader.eachKept([version], KEPT_FIELDS[AGED_INPUTS[side][role]] ?? [], builder[METHOD[role]]);
  return builder.part();
}

/** The part of one version: its digest's, when it has one this code reads (`digested`: it has one), else from its tuples. */
export async function partOfVersion(
  reader: AgedInputReader,
  side: AgedSide,
  role: AgedRole,
  version: number,
  digested: boolean,
): Promise<AgedPart> {
  if (digested) {
    // A digest that cannot be read back (its COPY in an unexpected shape) is no digest either: the tuples are there,
    // and a store that cannot be read at all fails the read of the tuples the same.
    const pieces = await reader.digestOf(version, AGED_DIGEST_KIND).catch(() => undefined);
    const part = pieces && decodeAgedPart(pieces, { side, role });
    if (part) return part;
  }
  return partFromRecords(reader, side, role, version);
}

/** The aged digest of a written version (the bytes to keep with it); undefined for a data type no aged report reads. */
export async function agedDigestOf(
  reader: Pick<RecordReader, 'eachKept'>,
  version: number,
  dataType: string,
): Promise<Uint8Array | undefined> {
  const input = agedInputOf(dataType);
  if (!input) return undefined;
  return encodeAgedPart(await partFromRecords(reader, input.side, input.role, version), input);
}

/**
 * The facts of the versions: each one's part (from its digest where `digested` has it; the `given` versions' parts
 * from elsewhere, awaited only once this thread's own are read), put together in reading order.
 */
export async function agedFactsOfVersions(
  reader: AgedInputReader,
  side: AgedSide,
  versions: AgedVersions,
  options: { digested: ReadonlySet<number>; given?: { versions: ReadonlySet<number>; parts: Promise<Map<number, AgedPart>> } },
): Promise<AgedFacts> {
  const inputs = inputsInOrder(versions);
  const parts = new Map<number, AgedPart>();
  for (const { role, version } of inputs) {
    if (options.given?.versions.has(version)) continue;
    parts.set(version, await partOfVersion(reader, side, role, version, options.digested.has(version)));
  }
  const given = options.given ? await options.given.parts : new Map<number, AgedPart>();
  return combineParts(
    side,
    inputs.map(({ version }) => {
      const part = parts.get(version) ?? given.get(version);
      if (!part) throw new Error(`no part was read of version ${version}`);
      return part;
    }),
  );
}
