import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Codat's published OpenAPI files, which Ledgerport does not ship (Codat gives them no licence): the tests read them
 * (test/helpers/oas.ts) and the emulator's EMULATOR_VALIDATE checks answers against them (src/emulator/codat-contract.ts),
 * both from `CODAT_OAS_DIR`, by default `../shared/reference/codat-oas` beside the checkout.
 */

/** The files every check needs. */
export const CODAT_FILES = ['Codat-Platform.json', 'Codat-Banking.json', 'Codat-Commerce.json', 'Codat-Lending.yaml'] as const;
/** Files read when present: the operations only they define are checked too. */
export const OPTIONAL_CODAT_FILES = ['Codat-Sync-Payables-v1.json', 'Codat-Sync-Commerce-v1.json'] as const;

/** The files missing from `dir` among those every check needs. */
export function missingCodatFiles(dir: string): string[] {
  return CODAT_FILES.filter((file) => !existsSync(resolve(dir, file)));
}
