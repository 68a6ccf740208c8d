import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { expect, inject } from 'vitest';
import type { Feature } from '../../src/connectors/platform-declaration.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the tests of this run record the capabilities they exercised (test/capabilities/capability-check.ts). */
    capabilityRecords: string;
  }
}

/** One capability a test exercised: what `/integrations` claims for a platform's data type, and which test proved it. */
export interface CapabilityRecord {
  platform: string;
  dataType: string;
  feature: Feature;
  /** The test file, from the repository's root (`test/connectors/xero/xero.test.ts`). */
  file: string;
  /** The test's full name as vitest gives it (`Xero > writes an invoice …`). */
  test: string;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Says that the running test exercised a platform's capability: it read the data type through the API and checked
 * what came back (`Get`), or made a write that the platform then held (`Post`, `Put`, `Delete`). Call it after the
 * assertions that prove it. After a full `npm test` run, the capability check compares these records with the
 * committed matrix (test/capabilities/capability-matrix.json) and with what each platform's declaration claims.
 */
export function exercised(platform: string, dataTypes: string | readonly string[], feature: Feature): void {
  const { currentTestName: test, testPath } = expect.getState();
  if (!test || !testPath) throw new Error('exercised() is called inside a test, after what proves it');
  const dir = inject('capabilityRecords');
  if (!dir) return;
  const file = path.relative(ROOT, testPath).split(path.sep).join('/');
  const lines = (typeof dataTypes === 'string' ? [dataTypes] : dataTypes).map((dataType) =>
    JSON.stringify({ platform, dataType, feature, file, test } satisfies CapabilityRecord),
  );
  appendFileSync(path.join(dir, `${process.pid}.capabilities.jsonl`), `${lines.join('\n')}\n`);
}
