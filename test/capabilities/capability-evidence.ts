import type { Feature } from '../../src/connectors/platform-declaration.js';
import type { CapabilityRecord } from '../helpers/capabilities.js';

/** What a platform's declaration claims for one of its data types (`/integrations`' `datatypeFeatures`). */
export interface Claim {
  platform: string;
  dataType: string;
  feature: Feature;
}

/** A row of the committed matrix: a claim and the test that exercises it. */
export interface MatrixRow extends Claim {
  file: string;
  test: string;
}

/** A test of the run and how it ended. */
export interface TestRun {
  file: string;
  test: string;
  state: 'passed' | 'failed' | 'skipped';
}

const claimKey = (c: Claim) => `${c.platform} ${c.dataType} ${c.feature}`;
const testKey = (t: { file: string; test: string }) => `${t.file} :: ${t.test}`;
const recordKey = (r: Claim & { file: string; test: string }) => `${claimKey(r)} @ ${testKey(r)}`;

/**
 * Compares a full run's evidence with the claims: every claim has exactly one row; every row is a claim; every row's
 * test ran, passed and recorded that capability; nothing was recorded that no platform claims. `strict` (CI) also
 * fails a row whose test was skipped (a test skips where a Debian program it needs is missing, except in CI); a row
 * whose test failed is left to that failure. Returns the problems (each fails the run) and notes (printed only).
 */
export function evidenceProblems(input: {
  claims: readonly Claim[];
  rows: readonly MatrixRow[];
  records: readonly CapabilityRecord[];
  tests: readonly TestRun[];
  strict: boolean;
}): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  const claimed = new Set(input.claims.map(claimKey));
  const rowsByClaim = new Map<string, MatrixRow[]>();
  for (const row of input.rows) rowsByClaim.set(claimKey(row), [...(rowsByClaim.get(claimKey(row)) ?? []), row]);
  const tests = new Map(input.tests.map((t) => [testKey(t), t]));
  const twice = new Set(input.tests.map(testKey).filter((key, i, all) => all.indexOf(key) !== i));
  const recorded = new Set(input.records.map(recordKey));

  for (const claim of input.claims) {
    const rows = rowsByClaim.get(claimKey(claim)) ?? [];
    if (rows.length === 0)
      problems.push(`${claimKey(claim)}: claimed by the platform's declaration, but no row of the matrix names a test exercising it`);
    if (rows.length > 1) problems.push(`${claimKey(claim)}: ${rows.length} rows; the matrix has one row a capability`);
  }
  for (const row of input.rows) {
    const where = `${claimKey(row)} (row: ${testKey(row)})`;
    if (!claimed.has(claimKey(row))) {
      problems.push(`${where}: no platform claims this capability`);
      continue;
    }
    const run = tests.get(testKey(row));
    if (twice.has(testKey(row))) problems.push(`${where}: two tests have that name in that file; a row names one test`);
    else if (!run) problems.push(`${where}: that test did not run (no test of that name in that file)`);
    else if (run.state === 'skipped') (input.strict ? problems : notes).push(`${where}: that test was skipped`);
    else if (run.state === 'failed') notes.push(`${where}: that test failed`);
    else if (!recorded.has(recordKey(row))) problems.push(`${where}: that test ran but did not record this capability`);
  }
  const seen = new Set<string>();
  for (const record of input.records) {
    if (claimed.has(claimKey(record)) || seen.has(claimKey(record))) continue;
    seen.add(claimKey(record));
    problems.push(`${claimKey(record)}: recorded by ${testKey(record)}, but the platform's declaration does not claim it`);
  }
  return { problems, notes };
}

/** The rows the matrix lacks, from what the run recorded: one test a claim, ready to paste into the matrix. */
export function suggestedRows(claims: readonly Claim[], rows: readonly MatrixRow[], records: readonly CapabilityRecord[]): MatrixRow[] {
  const have = new Set(rows.map(claimKey));
  const out: MatrixRow[] = [];
  for (const claim of claims) {
    if (have.has(claimKey(claim))) continue;
    const record = records.find((r) => claimKey(r) === claimKey(claim));
    if (record) out.push({ ...claim, file: record.file, test: record.test });
  }
  return out;
}
