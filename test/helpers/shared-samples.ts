import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Real-world files kept beside the checkout in `../shared/reference/samples/` (public journals under licences that
 * must not be copied into this repository), or in the folder `SHARED_SAMPLES_DIR` names. Where they are absent the
 * tests that read them skip and print why; under CI=true (and with SHARED_SAMPLES_REQUIRED=1) absence is a failure,
 * so a CI run cannot pass while checking nothing against them.
 */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SHARED_SAMPLES_DIR = resolve(REPO_ROOT, process.env.SHARED_SAMPLES_DIR || '../shared/reference/samples');

/** The folder `sub` of the shared samples, or undefined (having printed why) when it is not there. */
export function sharedSamples(sub: string): string | undefined {
  const dir = resolve(SHARED_SAMPLES_DIR, sub);
  if (existsSync(dir)) return dir;
  const reason = `the real-world samples are not at ${dir}; set SHARED_SAMPLES_DIR to the folder holding ${sub}/`;
  if (process.env.CI === 'true' || process.env.SHARED_SAMPLES_REQUIRED === '1') throw new Error(`required here: ${reason}`);
  console.warn(`[skipped] ${reason}`);
  return undefined;
}
