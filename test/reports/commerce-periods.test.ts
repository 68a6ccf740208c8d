import { describe, expect, it } from 'vitest';
import { commerceParameters, periodDays } from '../../src/reports/commerce/commerce-periods.js';
import { rounded } from '../../src/reports/commerce/commerce-metrics.js';

/*
 * The commerce metrics' periods and rounding (docs/lending/commerce-metrics.md), by worked cases: months stepping back
 * to the same day clamped to the month's end without drifting, half-open periods, the span bound; two places, half
 * away from zero, from exact integers.
 */

const days = (query: Record<string, string>) => commerceParameters(query).periods.map(periodDays);

describe('commerce periods', () => {
  it('steps months back to the same day, clamped to the month end, from the report date each time', () => {
    expect(days({ reportDate: '31-03-2024', periodUnit: 'Month', periodLength: '1', numberOfPeriods: '4' })).toEqual([
      { start: '2023-12-01', end: '2023-12-31' },
      { start: '2024-01-01', end: '2024-01-31' },
      { start: '2024-02-01', end: '2024-02-29' },
      { start: '2024-03-01', end: '2024-03-31' },
    ]);
    expect(days({ reportDate: '2024-05-15', periodUnit: 'Month', periodLength: '2', numberOfPeriods: '2' })).toEqual([
      { start: '2024-01-16', end: '2024-03-15' },
      { start: '2024-03-16', end: '2024-05-15' },
    ]);
    expect(days({ reportDate: '2024-02-29', periodUnit: 'Year', periodLength: '1', numberOfPeriods: '2' })).toEqual([
      { start: '2022-03-01', end: '2023-02-28' },
      { start: '2023-03-01', end: '2024-02-29' },
    ]);
  });

  it('clamps to the month end in years below 100 too (0004 is a leap year), and refuses periods before 0001-01-01', () => {
    expect(days({ reportDate: '29-03-0004', periodUnit: 'Month', periodLength: '1', numberOfPeriods: '2' })).toEqual([
      { start: '0004-01-30', end: '0004-02-29' },
      { start: '0004-03-01', end: '0004-03-29' },
    ]);
    expect(() => commerceParameters({ reportDate: '29-03-0001', periodUnit: 'Month', periodLength: '1', numberOfPeriods: '14' })).toThrow(
      /numberOfPeriods/,
    );
  });

  it('counts days and weeks back from the report date, index 0 the oldest', () => {
    expect(days({ reportDate: '2024-01-02', periodUnit: 'Day', periodLength: '1', numberOfPeriods: '3' })).toEqual([
      { start: '2023-12-31', end: '2023-12-31' },
      { start: '2024-01-01', end: '2024-01-01' },
      { start: '2024-01-02', end: '2024-01-02' },
    ]);
    expect(days({ reportDate: '2024-01-14', periodUnit: 'week', periodLength: '1', numberOfPeriods: '2' })).toEqual([
      { start: '2024-01-01', end: '2024-01-07' },
      { start: '2024-01-08', end: '2024-01-14' },
    ]);
  });

  it('bounds the span at 3,660 days and names each bad parameter', () => {
    expect(() =>
      commerceParameters({ reportDate: '2024-05-15', periodUnit: 'Day', periodLength: '3660', numberOfPeriods: '1' }),
    ).not.toThrow();
    expect(() => commerceParameters({ reportDate: '2024-05-15', periodUnit: 'Day', periodLength: '1830', numberOfPeriods: '3' })).toThrow(
      /numberOfPeriods/,
    );
    expect(() => commerceParameters({ reportDate: '2024-05-15', periodUnit: 'Day', periodLength: '3661', numberOfPeriods: '1' })).toThrow(
      /periodLength/,
    );
    expect(() => commerceParameters({ reportDate: '2024-05-15', periodUnit: 'Year', periodLength: '1', numberOfPeriods: '11' })).toThrow();
    expect(() => commerceParameters({ reportDate: '30-02-2024', periodUnit: 'Hour', periodLength: '0', numberOfPeriods: 'x' })).toThrow(
      /reportDate, periodUnit, periodLength, numberOfPeriods/,
    );
  });
});

describe('commerce rounding', () => {
  it.each([
    [125n, 1000n, 0.13],
    [-125n, 1000n, -0.13],
    [124n, 1000n, 0.12],
    [331518n, 9400n, 35.27],
    [39n, 94n, 0.41],
    [1n, 3n, 0.33],
    [2n, 3n, 0.67],
    [5n, 0n, 0],
  ])('%s / %s is %s', (numerator, denominator, expected) => {
    expect(rounded(numerator, denominator)).toBe(expected);
  });
});
