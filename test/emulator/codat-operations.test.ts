import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { codatOasOrSkip, oasFileHere, OAS_DIR } from '../helpers/oas.js';

/**
 * The emulator's table of Codat's operationIds (src/emulator/codat-operations.json) is what scripts/codat-operations.mjs
 * makes from Codat's OpenAPI files: a table that drifted from the files fails here.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SYNC_FILES = ['Codat-Sync-Payables-v1.json', 'Codat-Sync-Commerce-v1.json'] as const;
const here = codatOasOrSkip() && SYNC_FILES.every((file) => oasFileHere(file));
if (codatOasOrSkip() && !here) console.warn(`[skipped] the operation table's check needs ${SYNC_FILES.join(' and ')} in ${OAS_DIR}`);

describe.skipIf(!here)("the table of Codat's operationIds", () => {
  it('is what the script makes from the files', () => {
    const run = spawnSync(process.execPath, ['scripts/codat-operations.mjs', '--check'], {
      cwd: ROOT,
      env: { ...process.env, CODAT_OAS_DIR: OAS_DIR },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
  });
});
