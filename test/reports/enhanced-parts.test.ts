import { describe, expect, it } from 'vitest';
import { enhancedParameters, reportDay } from '../../src/reports/enhanced/enhanced-parameters.js';
import { monthEndDay, monthIndex, monthText } from '../../src/lib/calendar-date.js';
import { PROFIT_AND_LOSS_PARTS, statementLines } from '../../src/reports/enhanced/statement-lines.js';

/*
 * The enhanced statements' pure parts (docs/lending/enhanced-financials.md): reportDate's formats, the months it
 * selects, the bounds, and the account lines read from a statement, nested ones too (no platform here serves nested
 * account lines, so they are held here).
 */

describe('reportDate and numberOfPeriods', () => {
  it('reads dd-MM-yyyy and yyyy-MM-dd, either with a time of day, and nothing else', () => {
    expect(reportDay('29-09-2020')).toBe('2020-09-29');
    expect(reportDay('2020-09-29')).toBe('2020-09-29');
    expect(reportDay('29-09-2020T10:15:00Z')).toBe('2020-09-29');
    expect(reportDay('2020-09-29T23:59:59.999+01:00')).toBe('2020-09-29');
    expect(reportDay('29-02-2024')).toBe('2024-02-29');
    expect(reportDay('01-01-0001')).toBe('0001-01-01');
    for (const bad of ['29-02-2023', '2020/09/29', '9-9-2020', '2020-9-29', '', '00-01-2020', '01-01-0000', 'today', '29-09-2020T25'])
      expect(reportDay(bad), bad).toBeUndefined();
  });

  it('names months by index and ends them on their last day, years below 1000 too', () => {
    expect(monthEndDay(monthIndex('2024-02'))).toBe('2024-02-29');
    expect(monthEndDay(monthIndex('2023-12'))).toBe('2023-12-31');
    expect(monthEndDay(monthIndex('0001-01'))).toBe('0001-01-31');
    expect(monthEndDay(monthIndex('0004-02'))).toBe('0004-02-29');
    expect(monthEndDay(monthIndex('0999-12'))).toBe('0999-12-31');
    expect(monthEndDay(monthIndex('9999-12'))).toBe('9999-12-31');
    expect(monthText(monthIndex('0050-07'))).toBe('0050-07');
  });

  it('defaults to 12 periods, takes 1 to 120, and requires reportDate only where asked', () => {
    expect(enhancedParameters({}, false)).toEqual({ numberOfPeriods: 12 });
    expect(enhancedParameters({ reportDate: '15-03-2026', numberOfPeriods: '120' }, true)).toEqual({
      lastMonth: monthIndex('2026-03'),
      numberOfPeriods: 120,
    });
    expect(enhancedParameters({ reportDate: '2026-03-01', numberOfPeriods: 1 }, true).numberOfPeriods).toBe(1);
    const refused = (query: Record<string, unknown>, required: boolean) => {
      try {
        enhancedParameters(query, required);
      } catch (error) {
        return (error as { statusCode: number; message: string }).message;
      }
      return undefined;
    };
    expect(refused({}, true)).toMatch(/reportDate/);
    expect(refused({ reportDate: '01-01-2026', numberOfPeriods: '121' }, true)).toMatch(/numberOfPeriods/);
    expect(refused({ reportDate: '01-01-2026', numberOfPeriods: '0' }, false)).toMatch(/numberOfPeriods/);
    expect(refused({ reportDate: '31-04-2026' }, false)).toMatch(/reportDate/);
    expect(refused({ reportDate: 'x', numberOfPeriods: 'y' }, false)).toMatch(/reportDate, numberOfPeriods are not valid/);
  });
});

describe('account lines of a statement', () => {
  it('takes every line naming an account, nested ones, and a parent account only for what is posted to it beyond its lines', () => {
    const statement = {
      id: '2026-03',
      fromDate: '2026-03-01T00:00:00',
      toDate: '2026-03-31T00:00:00',
      income: {
        name: 'Income',
        value: 160.1,
        items: [
          {
            accountId: 'sales',
            name: 'Sales',
            value: 150.1,
            items: [
              { accountId: 'sales-uk', name: 'UK', value: 100 },
              { accountId: 'sales-eu', name: 'EU', value: 20.05 },
            ],
          },
          { name: 'Grouping without an account', value: 10, items: [{ accountId: 'other', name: 'Other', value: 10 }] },
        ],
      },
      expenses: {
        name: 'Expenses',
        value: 5,
        items: [{ accountId: 'rent', name: 'Rent', value: 5, items: [{ accountId: 'rent-office', name: 'Office', value: 5 }] }],
      },
      netProfit: 155.1,
    };
    const lines = statementLines(statement, PROFIT_AND_LOSS_PARTS).map((l) => [l.part, l.accountId, l.value, l.month]);
    const march = monthIndex('2026-03');
    expect(lines).toEqual([
      ['income', 'sales-uk', '100', march],
      ['income', 'sales-eu', '20.05', march],
      // 150.1 − 100 − 20.05, exactly.
      ['income', 'sales', '30.05', march],
      ['income', 'other', '10', march],
      // The parent's lines cover all of it: no line of its own.
      ['expenses', 'rent-office', '5', march],
    ]);
  });

  it('reads the month from the id, else the dates, and nothing from a record that names none', () => {
    const line = { name: 'Assets', value: 1, items: [{ accountId: 'bank', name: 'Bank', value: 1 }] };
    expect(statementLines({ date: '2025-12-31T00:00:00', assets: line }, ['assets'])[0].month).toBe(monthIndex('2025-12'));
    expect(statementLines({ assets: line }, ['assets'])).toEqual([]);
    expect(statementLines({ id: '2025-12', assets: 'not a line' }, ['assets'])).toEqual([]);
  });
});
