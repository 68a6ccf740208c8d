import prettier from 'prettier';
import type { MatrixRow } from './capability-evidence.js';

const FEATURES = ['Get', 'Post', 'Put', 'Delete'] as const;
export const TABLE_START = '<!-- capability matrix: start (npm run docs:capabilities) -->';
export const TABLE_END = '<!-- capability matrix: end -->';

/**
 * The matrix as docs/connectors.md shows it: one line a platform's data type, a column a feature; each ✓ links to the
 * test file that exercises it, with the test's name as the link's title. `names` gives each platform key its name.
 */
export function capabilityTable(rows: readonly MatrixRow[], names: ReadonlyMap<string, string>): string {
  const lines = ['| Platform | Data type | Get | Post | Put | Delete |', '| --- | --- | :-: | :-: | :-: | :-: |'];
  const types = [...new Set(rows.map((r) => `${r.platform}\u0000${r.dataType}`))];
  for (const key of types) {
    const [platform, dataType] = key.split('\u0000');
    const cells = FEATURES.map((feature) => {
      const row = rows.find((r) => r.platform === platform && r.dataType === dataType && r.feature === feature);
      return row ? `[✓](../${row.file} ${JSON.stringify(row.test.replace(/"/g, "'"))})` : '';
    });
    lines.push(`| ${names.get(platform) ?? platform} (\`${platform}\`) | \`${dataType}\` | ${cells.join(' | ')} |`);
  }
  return [TABLE_START, '', ...lines, '', TABLE_END].join('\n');
}

/** docs/connectors.md with its table made from the matrix (the text between the markers replaced), as Prettier writes it. */
export async function withCapabilityTable(doc: string, table: string, filepath: string): Promise<string> {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/connectors.md has no "${TABLE_START}" … "${TABLE_END}" markers`);
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  return prettier.format(doc.slice(0, start) + table + doc.slice(end + TABLE_END.length), { ...options, filepath });
}
