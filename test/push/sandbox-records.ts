import type { DataType } from '../../src/codat-model/data-types.js';
import { accountingSandbox } from '../../src/connectors/sandbox/accounting/index.js';

const cache = new Map<DataType, Record<string, unknown>[]>();

/** The accounting Sandbox's generated records of a type (small company), JSON round-tripped as the service stores them. */
export function generated(dataType: DataType): Record<string, unknown>[] {
  let list = cache.get(dataType);
  if (!list) {
    const source = accountingSandbox.dataTypes.get(dataType);
    if (!source) throw new Error(`the accounting Sandbox has no ${dataType}`);
    list = [...source.fetch({ settings: { seed: 1, invoices: 50, asOf: '2024-06-30' }, epoch: 0 })].map((r) =>
      JSON.parse(JSON.stringify(r.data)),
    );
    cache.set(dataType, list);
  }
  return list;
}

/** A generated record as a client would send it: without the read-only fields. */
export function asWritten(record: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, modifiedDate: _m, sourceModifiedDate: _s, metadata: _meta, ...written } = record;
  return written;
}
