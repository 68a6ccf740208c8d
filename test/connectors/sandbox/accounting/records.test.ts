import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACCOUNTING_DATA_TYPES, type DataType } from '../../../../src/codat-model/data-types.js';
import { accountingSandbox } from '../../../../src/connectors/sandbox/accounting/index.js';
import { Checks, INSTANT, fetchAll, problems, settings } from './helpers.js';

const S = settings(300);

function digest(dataType: DataType, seed: number, epoch: number): string {
  const h = createHash('sha1');
  for (const r of accountingSandbox.dataTypes.get(dataType)!.fetch({ settings: settings(200, seed), epoch })) {
    h.update(r.id).update(String(r.sourceModifiedDate)).update(JSON.stringify(r.data));
  }
  return h.digest('hex');
}

describe('accounting Sandbox connector', () => {
  it('is the mqjo Sandbox platform and provides every accounting data type', () => {
    expect(accountingSandbox.info).toMatchObject({ key: 'mqjo', name: 'Sandbox', sourceType: 'Accounting' });
    expect([...accountingSandbox.info.dataTypes]).toEqual([...ACCOUNTING_DATA_TYPES]);
    expect([...accountingSandbox.dataTypes.keys()].sort()).toEqual([...ACCOUNTING_DATA_TYPES].sort());
    for (const [dataType, source] of accountingSandbox.dataTypes) {
      expect(source.dataType).toBe(dataType);
      expect(source.typeName).toMatch(/^[A-Z][A-Za-z]+$/);
    }
  });

  it('fetch is lazy: the first record arrives without generating the rest', () => {
    const big = { seed: 1, invoices: 5_000_000, asOf: '2025-06-30' };
    const started = Date.now();
    const it = accountingSandbox.dataTypes.get('invoices')!.fetch({ settings: big, epoch: 0 })[Symbol.iterator]();
    expect(it.next().done).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe.each(ACCOUNTING_DATA_TYPES.map((t) => [t]))('%s', (dataType) => {
  const source = accountingSandbox.dataTypes.get(dataType)!;

  it.each([0, 2])('streams unique ids in ascending order with id and sourceModifiedDate mirrored in data (epoch %i)', (epoch) => {
    const list = fetchAll(dataType, S, epoch);
    expect(list.length).toBeGreaterThan(0);
    const c = new Checks();
    for (let k = 0; k < list.length; k++) {
      const r = list[k];
      if (k > 0) c.ok(r.id > list[k - 1].id, () => `${list[k - 1].id} then ${r.id}`);
      c.eq(r.data.id, r.id, 'data.id');
      c.ok(INSTANT.test(r.sourceModifiedDate ?? ''), () => `sourceModifiedDate ${r.sourceModifiedDate}`);
      c.eq(r.data.sourceModifiedDate, r.sourceModifiedDate, 'data.sourceModifiedDate');
      c.ok(!('modifiedDate' in r.data) && !('metadata' in r.data), () => `${r.id} carries fields the service adds`);
    }
    expect(c.failures).toEqual([]);
  });

  it.each([0, 2])('every record validates against the schema, declares every property and has no nulls (epoch %i)', (epoch) => {
    const bad: string[] = [];
    for (const r of fetchAll(dataType, S, epoch)) {
      const p = problems(source.schema, r.data);
      if (p.length > 0) bad.push(`${r.id}: ${p.slice(0, 3).join('; ')}`);
    }
    expect(bad.slice(0, 5)).toEqual([]);
  });

  it('is deterministic: the same settings give the same records, another seed others', () => {
    const first = digest(dataType, 11, 1);
    expect(digest(dataType, 11, 1)).toBe(first);
    expect(digest(dataType, 12, 1)).not.toBe(first);
  });
});
