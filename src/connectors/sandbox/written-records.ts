import type { SourceRecord } from '../connector.js';

/** A record written to the Sandbox through the service: it replaces, deletes or adds to the generated data. */
export interface WrittenRecord {
  id: string;
  deleted: boolean;
  /** The record as the platform now holds it; null when deleted. */
  record: SourceRecord | null;
}

/**
 * The generated records with the written ones applied, still in ascending id order: a written id replaces the
 * generated record of that id (or removes it when deleted), and new ids are slotted in. `written` must be sorted
 * by id in the same byte order as the generator's.
 */
export function* mergeWritten(generated: Iterable<SourceRecord>, written: readonly WrittenRecord[]): Generator<SourceRecord> {
  let w = 0;
  for (const record of generated) {
    while (w < written.length && written[w].id < record.id) {
      if (written[w].record) yield written[w].record as SourceRecord;
      w++;
    }
    if (w < written.length && written[w].id === record.id) {
      if (written[w].record) yield written[w].record as SourceRecord;
      w++;
      continue;
    }
    yield record;
  }
  for (; w < written.length; w++) if (written[w].record) yield written[w].record as SourceRecord;
}

/**
 * Finds the records with the given ids in a platform's id-ordered stream, stopping once the largest id is
 * passed. Ids that are absent map to undefined.
 */
export function findInStream(stream: Iterable<SourceRecord>, ids: ReadonlySet<string>): Map<string, SourceRecord> {
  const found = new Map<string, SourceRecord>();
  if (ids.size === 0) return found;
  let largest = '';
  for (const id of ids) if (id > largest) largest = id;
  for (const record of stream) {
    if (ids.has(record.id)) found.set(record.id, record);
    if (found.size === ids.size || record.id >= largest) break;
  }
  return found;
}
