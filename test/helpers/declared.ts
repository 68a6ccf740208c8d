import { connectionCalls } from './connection-calls.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from './sandbox.js';
import { startTestServer } from './test-server.js';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { PlatformDeclaration } from '../../src/connectors/platform-declaration.js';
import { fieldAt } from '../../src/connectors/platform-runtime.js';
import { fieldsChanged, schemaFields, type FieldRecord } from '../capabilities/declared-fields.js';

const FIELDS = schemaFields(PlatformDeclaration);
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Runs `run` with fields of a platform's declaration changed (by dotted path, e.g. `transport.paging.pageSize`), and
 * puts them back after, whatever happens. The runtime reads a declaration when it runs, so a test changes a field and
 * sees the platform's fake asked accordingly. Each field changed is recorded for the declared-fields check: after a
 * full run, every field a declaration can hold must have been changed by a test that passed
 * (test/capabilities/declared-fields.ts).
 */
export async function withDeclared<T>(
  declaration: PlatformDeclaration,
  changes: Readonly<Record<string, unknown>>,
  run: () => Promise<T>,
): Promise<T> {
  recordChanged(declaration, changes);
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

/**
 * A server of its own whose syncs read on its main thread, where a test changes a declaration (a writing thread holds
 * its own copy of the modules), with one company linked to `platformKey` by `link` (a consent followed, a key typed);
 * only `dataTypes` are read on first link, and their syncs have ended. Close `server` after.
 */
export async function ownServerLinked(
  platformKey: string,
  dataTypes: readonly string[],
  link: (calls: ReturnType<typeof connectionCalls>, linked: LinkedCompany) => Promise<void>,
) {
  const server = await startTestServer({ jobs: { writerThreads: 0 } });
  try {
    const client = await server.newClient();
    const linked = await companyWithConnection(server, client, platformKey);
    await fetchOnFirstLinkOnly(server, client, linked.companyId, dataTypes);
    const calls = connectionCalls(
      () => server,
      () => client,
      () => linked,
    );
    await link(calls, linked);
    await waitForSyncs(server, client, linked.companyId);
    return { server, client, linked, calls };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/** Records the declaration's fields a test changes, beside the capabilities it exercised (one file per worker). */
function recordChanged(declaration: PlatformDeclaration, changes: Readonly<Record<string, unknown>>): void {
  const { currentTestName: test, testPath } = expect.getState();
  const dir = inject('capabilityRecords');
  if (!test || !testPath || !dir) return;
  const file = path.relative(ROOT, testPath).split(path.sep).join('/');
  // Only what the change makes different counts (a field set to the value it has proves nothing).
  const lines = Object.entries(changes).flatMap(([at, value]) =>
    fieldsChanged(at, fieldAt(declaration as unknown as Record<string, unknown>, at), value, FIELDS).map((field) =>
      JSON.stringify({ platform: declaration.key, field, file, test } satisfies FieldRecord),
    ),
  );
  if (lines.length === 0) return;
  appendFileSync(path.join(dir, `${process.pid}.fields.jsonl`), `${lines.join('\n')}\n`);
}
