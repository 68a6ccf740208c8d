import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/portal/statement-pages.js';

/** The statement pages' rows across periods: one tree of lines, whatever each period holds. */

const line = (name: string, value: number, items: Record<string, unknown>[] = []) => ({ name, value, items });
const account = (accountId: string, name: string, value: number) => ({ accountId, name, value });

describe('statement rows', () => {
  it('keeps an account only an older period holds under its own section, before the totals', () => {
    const recent = { date: '2025-03-31', assets: line('Assets', 100, [account('a1', 'Bank', 100)]), netAssets: 100 };
    const older = {
      date: '2025-02-28',
      assets: line('Assets', 150, [account('a1', 'Bank', 90), account('a2', 'Receivable', 60)]),
      netAssets: 150,
    };
    expect(rowsOf([recent, older]).map((r) => [r.label, r.kind, r.depth, r.values])).toEqual([
      ['Assets', 'section', 0, [100, 150]],
      ['Bank', 'line', 1, [100, 90]],
      ['Receivable', 'line', 1, [undefined, 60]],
      ['Net assets', 'total', 0, [100, 150]],
    ]);
  });

  it('tells apart lines with neither an account id nor a name by their place', () => {
    const report = { date: '2025-03-31', equity: line('Equity', 3, [{ value: 1 }, { value: 2 }]) };
    expect(rowsOf([report]).map((r) => r.values[0])).toEqual([3, 1, 2]);
  });
});
