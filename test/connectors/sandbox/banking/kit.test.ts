import { describe, expect, it } from 'vitest';
import { Calendar } from '../../../../src/connectors/sandbox/banking/kit/calendar.js';
import { guid, h2, h3, h3s, h4, h4p, h5, Ids, pairState, seedState, u3 } from '../../../../src/connectors/sandbox/banking/kit/fast.js';
import { Movement } from '../../../../src/connectors/sandbox/banking/kit/movement.js';
import { ibanOf } from '../../../../src/connectors/sandbox/banking/account-kinds.js';
import { hash32, sortableGuid, unit } from '../../../../src/connectors/sandbox/random.js';

describe('sandbox kit', () => {
  it('fast hashes and ids equal the generic helpers of random.ts', () => {
    const mismatches: number[] = [];
    const ids = new Ids(12345, 0xdeadbeef);
    for (let i = 0; i < 5000; i++) {
      const index = i < 4000 ? i * 7919 : 2 ** 40 + i * 104_729;
      const same =
        guid(12345, 0xdeadbeef, index) === sortableGuid(12345, 0xdeadbeef, index) &&
        h2(i, 3) === hash32(i, 3) &&
        h3(i, 3, -i) === hash32(i, 3, -i) &&
        h4(1, i, 2, 3) === hash32(1, i, 2, 3) &&
        h5(1, i, 2, 3, 4) === hash32(1, i, 2, 3, 4) &&
        u3(7, i, 9) === unit(7, i, 9) &&
        ids.of(index) === sortableGuid(12345, 0xdeadbeef, index) &&
        h3s(seedState(77), i, 5) === hash32(77, i, 5) &&
        h4p(pairState(77, 88), i, 3) === hash32(77, 88, i, 3);
      if (!same) mismatches.push(i);
    }
    expect(mismatches).toEqual([]);
  });

  it('spans three years up to asOf and places epochs asOf + k hours', () => {
    const cal = new Calendar('2024-05-15');
    expect(cal.day(0)).toBe('2021-06-01');
    expect(cal.day(cal.days - 1)).toBe('2024-05-15');
    expect(cal.months).toBe(36);
    expect(cal.completedMonths).toBe(35);
    expect(cal.epochStamp(3)).toBe('2024-05-15T03:00:00Z');
    expect(cal.epochStamp(25)).toBe('2024-05-16T01:00:00Z');
    expect(cal.created(cal.days - 1, 50_000) < cal.epochStamp(1)).toBe(true);
    expect(() => new Calendar('2024-13-40')).toThrow();
  });

  it('moves records between epochs: growth, deletions that stick, changes by hash', () => {
    const e3 = new Movement(1, 2, 10_000, 3);
    expect(e3.totals).toEqual([10_000, 10_100, 10_201, 10_303]);
    let deletedBy1 = 0;
    let deletedBy3 = 0;
    let changedAt2 = 0;
    const e1 = new Movement(1, 2, 10_000, 1);
    for (let i = 0; i < e3.total; i++) {
      const d1 = i < e1.total ? e1.deletedAt(i) : 0;
      const d3 = e3.deletedAt(i);
      if (d1) {
        deletedBy1++;
        expect(d3).toBe(d1);
      }
      if (d3) deletedBy3++;
      if (e3.changedAt(i) >= 2 && e3.changes(i).includes(2)) changedAt2++;
    }
    expect(deletedBy1).toBe(50);
    expect(deletedBy3).toBeGreaterThan(140);
    expect(deletedBy3).toBeLessThanOrEqual(50 + 51 + 51);
    expect(changedAt2).toBeGreaterThan(150);
    expect(changedAt2).toBeLessThan(260);
    expect(new Movement(1, 2, 30, 2).totals).toEqual([30, 31, 32]);
  });

  it('makes checksum-valid IBANs', () => {
    expect(ibanOf('GB', 'WEST12345698765432')).toBe('GB82WEST12345698765432');
  });
});
