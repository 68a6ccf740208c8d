import { describe, expect, it } from 'vitest';
import { addIsoDuration } from '../../src/emulator/iso-duration.js';

/** The durations an advance takes (`by`): calendar years and months, exact weeks, days and times. */

const from = (iso: string) => new Date(iso);
const moved = (iso: string, by: string) => addIsoDuration(from(iso), by)?.toISOString();

describe('addIsoDuration', () => {
  it('steps calendar months and years, clamped to the month’s last day, keeping the time of day', () => {
    expect(moved('2027-01-31T10:15:00.000Z', 'P1M')).toBe('2027-02-28T10:15:00.000Z');
    expect(moved('2028-02-29T00:00:00.000Z', 'P1Y')).toBe('2029-02-28T00:00:00.000Z');
    expect(moved('2027-11-30T23:59:59.999Z', 'P3M')).toBe('2028-02-29T23:59:59.999Z');
    // Years below 100 stay themselves (not 19xx).
    expect(moved('0050-01-31T12:00:00.000Z', 'P1M')).toBe('0050-02-28T12:00:00.000Z');
  });

  it('adds weeks, days and times exactly, fractions of seconds included', () => {
    expect(moved('2027-03-27T12:00:00.000Z', 'P1W1DT1H1M1.5S')).toBe('2027-04-04T13:01:01.500Z');
    expect(moved('2027-01-01T00:00:00.000Z', 'PT0,25S')).toBe('2027-01-01T00:00:00.250Z');
    expect(moved('2027-01-01T00:00:00.000Z', 'P30D')).toBe('2027-01-31T00:00:00.000Z');
    expect(moved('2027-01-01T00:00:00.000Z', 'PT0S')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('is undefined for text that is not such a duration, or lands outside JavaScript’s dates', () => {
    for (const text of ['', 'P', 'PT', '-P1D', 'P1.5D', 'P1DT', '30 days', 'p1d', 'P1H', 'PT1D'])
      expect(addIsoDuration(from('2027-01-01T00:00:00Z'), text), text).toBeUndefined();
    expect(addIsoDuration(from('2027-01-01T00:00:00Z'), 'P99999999999D')).toBeUndefined();
    expect(addIsoDuration(from('2027-01-01T00:00:00Z'), 'P999999999M')).toBeUndefined();
  });
});
