import { describe, expect, it } from 'vitest';
import { evidenceProblems, suggestedRows, type Claim, type MatrixRow, type TestRun } from './capability-evidence.js';
import type { CapabilityRecord } from '../helpers/capabilities.js';
import { declarationLeaves, fieldsChanged, schemaFields, unreadFields } from './declared-fields.js';
import { PlatformDeclaration } from '../../src/connectors/platform-declaration.js';

// The comparison the capability check makes after a full run (capability-check.ts), on a small made-up run.
const claims: Claim[] = [
  { platform: 'gbol', dataType: 'invoices', feature: 'Get' },
  { platform: 'gbol', dataType: 'invoices', feature: 'Post' },
];
const rows: MatrixRow[] = [
  { ...claims[0], file: 'test/x.test.ts', test: 'X > reads' },
  { ...claims[1], file: 'test/x.test.ts', test: 'X > writes' },
];
const tests: TestRun[] = [
  { file: 'test/x.test.ts', test: 'X > reads', state: 'passed' },
  { file: 'test/x.test.ts', test: 'X > writes', state: 'passed' },
];
const records: CapabilityRecord[] = rows.map((r) => ({ ...r }));
const check = (over: Partial<Parameters<typeof evidenceProblems>[0]>) =>
  evidenceProblems({ claims, rows, records, tests, strict: false, ...over });

describe('the capability check', () => {
  it('passes when every claim has a row whose test ran, passed and recorded it', () => {
    expect(check({})).toEqual({ problems: [], notes: [] });
  });

  it('fails a claim without a row, and suggests the row from what a test recorded', () => {
    const { problems } = check({ rows: rows.slice(0, 1) });
    expect(problems).toEqual([expect.stringContaining('gbol invoices Post: claimed by the platform')]);
    expect(suggestedRows(claims, rows.slice(0, 1), records)).toEqual([rows[1]]);
  });

  it('fails a row whose test did not run, or ran without recording that capability', () => {
    expect(check({ tests: tests.slice(0, 1) }).problems).toEqual([expect.stringContaining('that test did not run')]);
    expect(check({ records: records.slice(0, 1) }).problems).toEqual([
      expect.stringContaining('that test ran but did not record this capability'),
    ]);
  });

  it('fails a row no platform claims, and a capability recorded that no platform claims', () => {
    const { problems } = check({ claims: claims.slice(0, 1) });
    expect(problems).toEqual([
      expect.stringContaining('gbol invoices Post (row: test/x.test.ts :: X > writes): no platform claims'),
      expect.stringContaining('gbol invoices Post: recorded by test/x.test.ts :: X > writes, but the platform'),
    ]);
  });

  it('fails two rows for one claim', () => {
    expect(check({ rows: [...rows, { ...rows[1], test: 'X > reads' }] }).problems).toEqual([
      expect.stringContaining('gbol invoices Post: 2 rows'),
      expect.stringContaining('that test ran but did not record'),
    ]);
  });

  it('fails a row naming a test whose name two tests of the file share', () => {
    expect(check({ tests: [...tests, tests[1]] }).problems).toEqual([expect.stringContaining('two tests have that name in that file')]);
  });

  it('fails a skipped row test in CI only, and leaves a failed one to its own failure', () => {
    const skipped = tests.map((t, i) => (i === 0 ? { ...t, state: 'skipped' as const } : t));
    expect(check({ tests: skipped }).problems).toEqual([]);
    expect(check({ tests: skipped }).notes).toEqual([expect.stringContaining('that test was skipped')]);
    expect(check({ tests: skipped, strict: true }).problems).toEqual([expect.stringContaining('that test was skipped')]);
    const failed = tests.map((t, i) => (i === 0 ? { ...t, state: 'failed' as const } : t));
    expect(check({ tests: failed, records: records.slice(1) })).toEqual({
      problems: [],
      notes: [expect.stringContaining('that test failed')],
    });
  });
});

describe('the declared-fields check', () => {
  const fields = schemaFields(PlatformDeclaration);
  const leaves = declarationLeaves(PlatformDeclaration);

  it("names every field of the declaration's schema, a data type's and an array item's as *", () => {
    expect(leaves).toEqual(
      expect.arrayContaining([
        'transport.paging.pageSize',
        'transport.remainingLimits.*.header',
        'dataTypes.*.cursor.field',
        'oauth2.more.*',
        'hooks.pageRequest',
      ]),
    );
  });

  it('covers the fields a change makes different, and no other', () => {
    expect(fieldsChanged('dataTypes.invoices.cursor', 'none', { field: 'x' }, fields)).toEqual([
      'dataTypes.*.cursor.field',
      'dataTypes.*.cursor',
    ]);
    expect(fieldsChanged('dataTypes.invoices.cursor', { field: 'x' }, { field: 'y' }, fields)).toEqual(['dataTypes.*.cursor.field']);
    const limits = [{ header: 'h', scope: 'day' }];
    expect(fieldsChanged('transport.remainingLimits', limits, [{ header: 'g', scope: 'day' }], fields)).toEqual([
      'transport.remainingLimits.*.header',
    ]);
    expect(fieldsChanged('transport.remainingLimits', limits, undefined, fields)).toEqual([
      'transport.remainingLimits.*.header',
      'transport.remainingLimits.*.scope',
      'transport.remainingLimits.*',
      'transport.remainingLimits',
    ]);
    // The same value again changes nothing.
    const politeness = { maxConcurrent: 4, requests: 100, windowMs: 1000 };
    expect(fieldsChanged('transport.politeness', politeness, { ...politeness }, fields)).toEqual([]);
    expect(fieldsChanged('transport.timeoutMs', 5000, 5000, fields)).toEqual([]);
  });

  it('fails a field no passing test changed', () => {
    const run = (state: TestRun['state']) => ({
      fields: ['transport.timeoutMs', 'transport.paging.pageSize'],
      records: [{ platform: 'gbol', field: 'transport.timeoutMs', file: 'test/x.test.ts', test: 'X > reads' }],
      tests: [{ file: 'test/x.test.ts', test: 'X > reads', state }],
    });
    expect(unreadFields(run('passed'))).toEqual(['transport.paging.pageSize']);
    expect(unreadFields(run('failed'))).toEqual(['transport.timeoutMs', 'transport.paging.pageSize']);
    expect(unreadFields({ ...run('passed'), fields: ['dataTypes.*.features.*'] })).toEqual([]);
  });
});
