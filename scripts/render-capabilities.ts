import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONNECTORS } from '../src/connectors/registry.js';
import { capabilityTable, withCapabilityTable } from '../test/capabilities/capability-table.js';
import type { MatrixRow } from '../test/capabilities/capability-evidence.js';

// Writes docs/connectors.md's capability table from test/capabilities/capability-matrix.json (npm run docs:capabilities).
const root = path.resolve(import.meta.dirname, '..');
const rows = JSON.parse(readFileSync(path.join(root, 'test/capabilities/capability-matrix.json'), 'utf8')) as MatrixRow[];
const names = new Map(CONNECTORS.map((c) => [c.info.key, c.info.name]));
const doc = path.join(root, 'docs/connectors.md');
writeFileSync(doc, await withCapabilityTable(readFileSync(doc, 'utf8'), capabilityTable(rows, names), doc));
console.log(`docs/connectors.md: ${rows.length} capabilities`);
