import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The connector boundary: the rest of the service knows the interface, never a platform's internals. */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('connector boundaries', () => {
  it('nothing outside src/connectors imports a platform folder (the Sandboxes, hledger)', () => {
    const offenders: string[] = [];
    for (const file of files(SRC)) {
      const relative = path.relative(SRC, file);
      if (relative.startsWith(`connectors${path.sep}`)) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '([^']+)'/g)) {
        if (/connectors\/(sandbox|hledger)\//.test(match[1])) offenders.push(`${relative}: ${match[1]}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
