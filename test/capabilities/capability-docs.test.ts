import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONNECTORS } from '../../src/connectors/registry.js';
import { capabilityTable, withCapabilityTable } from './capability-table.js';
import type { MatrixRow } from './capability-evidence.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('the capability matrix in docs/connectors.md', () => {
  it('is the committed matrix, rendered (npm run docs:capabilities writes it)', async () => {
    const rows = JSON.parse(readFileSync(path.join(root, 'test/capabilities/capability-matrix.json'), 'utf8')) as MatrixRow[];
    const file = path.join(root, 'docs/connectors.md');
    const doc = readFileSync(file, 'utf8');
    const table = capabilityTable(rows, new Map(CONNECTORS.map((c) => [c.info.key, c.info.name])));
    expect(await withCapabilityTable(doc, table, file)).toBe(doc);
    // Every test file a row names exists (the check after a full run says whether its test ran and recorded).
    for (const row of rows) expect(() => readFileSync(path.join(root, row.file)), row.file).not.toThrow();
  });
});
