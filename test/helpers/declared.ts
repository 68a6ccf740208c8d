import type { PlatformDeclaration } from '../../src/connectors/platform-declaration.js';

/**
 * Runs `run` with fields of a platform's declaration changed (by dotted path, e.g. `transport.paging.pageSize`), and
 * puts them back after, whatever happens. The runtime reads a declaration when it runs, so a test changes a field and
 * sees the platform's fake asked accordingly.
 */
export async function withDeclared<T>(
  declaration: PlatformDeclaration,
  changes: Readonly<Record<string, unknown>>,
  run: () => Promise<T>,
): Promise<T> {
  const undo: (() => void)[] = [];
  try {
    for (const [path, value] of Object.entries(changes)) {
      const parts = path.split('.');
      let holder = declaration as unknown as Record<string, unknown>;
      for (const part of parts.slice(0, -1)) {
        if (holder[part] === null || typeof holder[part] !== 'object') throw new Error(`the declaration has no ${path}`);
        holder = holder[part] as Record<string, unknown>;
      }
      const last = parts[parts.length - 1];
      const had = Object.hasOwn(holder, last);
      const before = holder[last];
      const target = holder;
      undo.unshift(() => {
        if (had) target[last] = before;
        else delete target[last];
      });
      holder[last] = value;
    }
    return await run();
  } finally {
    for (const step of undo) step();
  }
}
