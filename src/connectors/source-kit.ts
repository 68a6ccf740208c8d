import type { TSchema } from '@sinclair/typebox';
import type { DataTypeRead, DataTypeSource, ReadContext, RecordPage, SourceRecord } from './connector.js';
import type { DataType } from '../codat-model/data-types.js';

/*
 * What every platform connector's records and sources are made of: the small rules each would otherwise write
 * again (an absent field stays absent, a record carries its own id and change time, a small data type is read
 * whole in one answer).
 */

export type Data = Record<string, unknown>;

/** Leaves out fields whose value is undefined, so a field the platform does not give is absent, not null. */
export function defined(data: Data): Data {
  for (const key of Object.keys(data)) if (data[key] === undefined) delete data[key];
  return data;
}

/** A finite number, or undefined. */
export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
/** A non-empty string, or undefined. */
export const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * A record as a sync takes it: its id and the platform's change time beside its data, and in it (Codat serves
 * both). Where the platform keeps no change time for a record, the served record has none (Codat's documents type
 * `sourceModifiedDate` as a date-time, never null).
 */
export function sourceRecord(id: string, modified: string | null, data: Data): SourceRecord {
  return { id, sourceModifiedDate: modified, data: { id, ...data, ...(modified ? { sourceModifiedDate: modified } : {}) } };
}

/** A data type made of whole answers read in full each time (a company's details, a report, a short list). */
export function wholeSource(spec: {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  records(ctx: ReadContext): Promise<SourceRecord[]>;
}): DataTypeSource {
  return {
    dataType: spec.dataType,
    typeName: spec.typeName,
    schema: spec.schema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const records = await spec.records(ctx);
      async function* pages(): AsyncIterable<RecordPage> {
        yield { records };
      }
      return { mode: 'full', ordered: false, pages: pages(), nextCursor: () => null };
    },
  };
}
