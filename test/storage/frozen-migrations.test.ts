import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Migrations are frozen: once released, what a migration does must not change when application code changes, so
 * a migration imports nothing of the application's at run time (types are erased; Kysely is a library).
 */
const DIR = fileURLToPath(new URL('../../src/storage/migrations/', import.meta.url));
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.ts'));

describe('migrations', () => {
  it.each(files)('%s imports no application code', (file) => {
    const text = fs.readFileSync(DIR + file, 'utf8');
    const imports = [...text.matchAll(/^import\s+(type\s+)?[\s\S]*?from\s+'([^']+)';/gm)].map((m) => ({
      typeOnly: m[1] !== undefined,
      from: m[2],
    }));
    const live = imports.filter((i) => !i.typeOnly && !/^(kysely|node:)/.test(i.from));
    expect(live).toEqual([]);
  });
});
