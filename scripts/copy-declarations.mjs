// Copies the platforms' declarations (src/**/platform.yaml) beside the built code in dist/, where each platform's
// platform.js reads its own at start: tsc builds only the TypeScript.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.yaml')) continue;
  const from = path.join(entry.parentPath, entry.name);
  cpSync(from, path.join(root, 'dist', path.relative(src, from)));
}
