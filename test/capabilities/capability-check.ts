import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { CapabilityRecord } from '../helpers/capabilities.js';
import { evidenceProblems, suggestedRows, type Claim, type MatrixRow, type TestRun } from './capability-evidence.js';
import { declarationLeaves, unreadFields, type FieldRecord } from './declared-fields.js';

/*
 * The capability check (vitest's global setup): every Get, Post, Put and Delete a platform claims in `/integrations`
 * is backed by a test that exercised it. Tests record what they exercise through `exercised()`
 * (test/helpers/capabilities.ts) into a folder made here; after a full run, the teardown compares those records with
 * the committed matrix (capability-matrix.json) and the platforms' declarations, and fails the run on any gap. A run
 * of some files or some tests only skips the comparison, saying so.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
export const MATRIX_FILE = path.join(ROOT, 'test/capabilities/capability-matrix.json');

export default function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ledgerport-capabilities-'));
  project.provide('capabilityRecords', dir);
  return async () => {
    try {
      await check(project, dir);
    } catch (err) {
      // Vitest only logs an error thrown here: the run must fail on it, not pass unchecked.
      console.error('capability check failed to run:', err);
      process.exitCode = 1;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function check(project: TestProject, dir: string): Promise<void> {
  // For whoever edits the matrix: what this run recorded, full run or not (CAPABILITY_RECORDS_OUT=file).
  if (process.env.CAPABILITY_RECORDS_OUT)
    writeFileSync(process.env.CAPABILITY_RECORDS_OUT, JSON.stringify(recordsIn<CapabilityRecord>(dir, '.capabilities.jsonl'), null, 2));
  const files = project.vitest.state.getFiles();
  // Every test file of the repository, found here rather than from the run's configuration (which `--exclude` changes).
  const testFiles = testFilesUnder(path.join(ROOT, 'test'));
  const ran = new Set(files.map((f) => f.filepath));
  const partial = project.config.testNamePattern
    ? 'a test name filter was given'
    : project.config.tagsFilter?.length
      ? 'a tag filter was given'
      : testFiles.some((f) => !ran.has(f))
        ? `${testFiles.filter((f) => ran.has(f)).length} of ${testFiles.length} test files ran`
        : undefined;
  const tests = files.flatMap((file) => testsOf(file, path.relative(ROOT, file.filepath).split(path.sep).join('/')));
  if (partial) {
    console.log(`capability check: skipped (${partial}; it runs after a full npm test)`);
    // For whoever adds a declared field: which ones the tests that ran left unread.
    if (process.env.CAPABILITY_RECORDS_OUT) {
      const unread = await unreadDeclaredFields(dir, tests);
      console.log(`declaration fields these tests did not change: ${unread.join(', ') || 'none'}`);
    }
    return;
  }
  const { CONNECTORS } = await import('../../src/connectors/registry.js');
  const claims: Claim[] = CONNECTORS.flatMap((c) =>
    Object.entries(c.declaration.dataTypes).flatMap(([dataType, { features }]) =>
      features.map((feature) => ({ platform: c.info.key, dataType, feature })),
    ),
  );
  const rows = JSON.parse(readFileSync(MATRIX_FILE, 'utf8')) as MatrixRow[];
  const records = recordsIn<CapabilityRecord>(dir, '.capabilities.jsonl');
  const { problems, notes } = evidenceProblems({ claims, rows, records, tests, strict: process.env.CI === 'true' });
  // Every field a declaration can hold is read: a test that passed changed it and saw it heeded.
  for (const field of await unreadDeclaredFields(dir, tests))
    problems.push(`declaration field ${field}: no test that passed changed it (withDeclared, test/helpers/declared.ts) and saw it read`);
  for (const note of notes) console.log(`capability check: ${note}`);
  if (problems.length === 0) {
    console.log(
      notes.length === 0
        ? `capability check: ${claims.length} capabilities claimed, each exercised by the test its row names`
        : `capability check: ${claims.length} capabilities claimed; ${notes.length} of their tests did not run here (above)`,
    );
    return;
  }
  const missing = suggestedRows(claims, rows, records);
  console.error(
    [
      `capability check failed (${path.relative(ROOT, MATRIX_FILE)}, docs/connectors.md "Capabilities"):`,
      ...problems.map((p) => `  - ${p}`),
      ...(missing.length > 0 ? ['rows this run could back (a test recorded each):', JSON.stringify(missing, null, 2)] : []),
    ].join('\n'),
  );
  process.exitCode = 1;
}

/** The fields a declaration can hold (its schema's leaves) that no test of the run changed and passed. */
async function unreadDeclaredFields(dir: string, tests: TestRun[]): Promise<string[]> {
  const { PlatformDeclaration } = await import('../../src/connectors/platform-declaration.js');
  return unreadFields({ fields: declarationLeaves(PlatformDeclaration), records: recordsIn<FieldRecord>(dir, '.fields.jsonl'), tests });
}

/** The `.test.ts` files below a folder. */
function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFilesUnder(at);
    return entry.name.endsWith('.test.ts') ? [at] : [];
  });
}

/** What the run's tests recorded of one kind (capabilities, declaration fields changed): one file per worker process. */
function recordsIn<T>(dir: string, suffix: string): T[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .flatMap((name) =>
      readFileSync(path.join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as T),
    );
}

interface TaskLike {
  type: string;
  name: string;
  mode: string;
  fullTestName?: string;
  result?: { state?: string };
  tasks?: TaskLike[];
}

function testsOf(task: TaskLike, file: string, names: string[] = []): TestRun[] {
  if (task.type === 'test') {
    const state = task.result?.state === 'pass' ? 'passed' : task.result?.state === 'fail' ? 'failed' : 'skipped';
    return [{ file, test: task.fullTestName ?? [...names, task.name].join(' > '), state }];
  }
  // The file is the outermost suite: its name is not part of a test's name.
  const inner = 'filepath' in task ? names : [...names, task.name];
  return (task.tasks ?? []).flatMap((child) => testsOf(child, file, inner));
}
