import { readFileSync } from 'node:fs';

/** The package version (package.json), shown in the OpenAPI document and by `ledgerport --version`. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
