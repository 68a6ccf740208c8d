import type { TSchema } from '@sinclair/typebox';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'vitest';
import type { SourceRecord } from '../../../../src/connectors/connector.js';
import type { ConnectionSettings, GeneratedSource as DataTypeSource } from '../../../../src/connectors/sandbox/generated-source.js';
import { codatOasOrSkip, oasErrors, oasValidator, type OasFile } from '../../../helpers/oas.js';

/** Shared checks for the banking and commerce Sandbox suites. */

// TypeBox only checks formats it knows: ISO date-times (with or without a zone, as Codat sends them) and URIs.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v.length === 19 ? `${v}Z` : v)));
if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v));

export function collect(source: DataTypeSource, settings: ConnectionSettings, epoch: number): SourceRecord[] {
  return [...source.fetch({ settings, epoch })];
}

/** The record as the service serves it: `modifiedDate` added, and `metadata` when the schema has one. */
export function served(record: SourceRecord, schema: TSchema): Record<string, unknown> {
  const withModified = { ...record.data, modifiedDate: '2024-06-01T12:00:00Z' };
  const hasMetadata = Boolean((schema as { properties?: Record<string, unknown> }).properties?.metadata);
  return JSON.parse(JSON.stringify(hasMetadata ? { ...withModified, metadata: { isDeleted: false } } : withModified));
}

/** Ids unique and strictly ascending (plain string order), matching the data, with UTC source dates. */
export function expectWellFormed(records: SourceRecord[], source: DataTypeSource): void {
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (i > 0 && !(records[i - 1].id < r.id))
      throw new Error(`${source.dataType}: ids not ascending at ${i}: ${records[i - 1].id} then ${r.id}`);
    if (r.data.id !== r.id) throw new Error(`${source.dataType}: data.id ${String(r.data.id)} differs from id ${r.id}`);
    if (r.sourceModifiedDate === null || r.data.sourceModifiedDate !== r.sourceModifiedDate)
      throw new Error(`${source.dataType}: sourceModifiedDate mismatch on ${r.id}`);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(r.sourceModifiedDate))
      throw new Error(`${source.dataType}: sourceModifiedDate ${r.sourceModifiedDate} is not UTC`);
    if (!Value.Check(source.schema, r.data)) {
      const first = [...Value.Errors(source.schema, r.data)][0];
      throw new Error(`${source.dataType} ${r.id} fails its TypeBox schema: ${first?.path} ${first?.message}`);
    }
    const wrapped = served(r, source.schema);
    if (!Value.Check(source.schema, wrapped)) throw new Error(`${source.dataType} ${r.id} as served fails its TypeBox schema`);
  }
}

/** Every record, as served, validates against `#/components/schemas/<schemaName>` of the OAS file. */
export function expectOasValid(records: SourceRecord[], source: DataTypeSource, file: OasFile, schemaName: string): void {
  if (!codatOasOrSkip()) return;
  const validate = oasValidator(file, schemaName);
  for (const r of records) {
    if (!validate(served(r, source.schema)))
      throw new Error(`${source.dataType} ${r.id} fails ${file} ${schemaName}: ${oasErrors(validate)}`);
  }
}

/** A page of records as the service returns it, validated against the OAS page schema (e.g. `Transactions`). */
export function expectOasPageValid(records: SourceRecord[], source: DataTypeSource, file: OasFile, pageSchema: string): void {
  if (!codatOasOrSkip()) return;
  const validate = oasValidator(file, pageSchema);
  const results = records.slice(0, 100).map((r) => served(r, source.schema));
  const page = {
    results,
    pageNumber: 1,
    pageSize: 100,
    totalResults: records.length,
    _links: {
      self: { href: '/companies/x/connections/y/data/z' },
      current: { href: '/companies/x/connections/y/data/z?page=1&pageSize=100' },
    },
  };
  if (!validate(page)) throw new Error(`${source.dataType} page fails ${file} ${pageSchema}: ${oasErrors(validate)}`);
}

/** `asOf` + k hours, the instant of epoch k. */
export function epochStamp(asOf: string, k: number): string {
  return new Date(Date.parse(`${asOf}T00:00:00Z`) + k * 3_600_000).toISOString().replace('.000Z', 'Z');
}

export interface Movement {
  added: string[];
  deleted: string[];
  changed: string[];
  unchanged: number;
}

/** What epoch `e + 1` did to a type's records compared with epoch `e`, with the rules every type follows. */
export function expectMovement(before: SourceRecord[], after: SourceRecord[], asOf: string, nextEpoch: number): Movement {
  const old = new Map(before.map((r) => [r.id, r]));
  const now = new Set(after.map((r) => r.id));
  const stamp = epochStamp(asOf, nextEpoch);
  const previous = epochStamp(asOf, nextEpoch - 1);
  const result: Movement = { added: [], deleted: [], changed: [], unchanged: 0 };
  const problems: string[] = [];
  for (const r of after) {
    const prior = old.get(r.id);
    const modified = r.sourceModifiedDate!;
    if (modified > stamp) problems.push(`${r.id} modified ${modified} after epoch ${nextEpoch}`);
    if (!prior) {
      result.added.push(r.id);
      // New records are created during the epoch: after the previous epoch's instant, by this one's.
      if (!(modified > previous)) problems.push(`new ${r.id} modified ${modified}, not after ${previous}`);
    } else if (JSON.stringify(prior.data) !== JSON.stringify(r.data)) {
      result.changed.push(r.id);
      if (modified !== stamp) problems.push(`changed ${r.id} modified ${modified}, not ${stamp}`);
    } else result.unchanged++;
  }
  for (const id of old.keys()) if (!now.has(id)) result.deleted.push(id);
  expect(problems.slice(0, 10)).toEqual([]);
  return result;
}
