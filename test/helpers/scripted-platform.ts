import type { Connector, DataTypeRead, ReadContext, RecordPage, SourceRecord } from '../../src/connectors/connector.js';
import { accountingSandbox } from '../../src/connectors/sandbox/accounting/index.js';
import { ConnectorError } from '../../src/connectors/connector-error.js';
import { declarePlatform } from '../../src/connectors/platform-declaration.js';
import { platformConnector } from '../../src/connectors/platform-connector.js';

/**
 * A platform of the test's own behind the connector interface: it holds invoices the test sets and deletes,
 * keeps a change log, and answers a read with no cursor as a full snapshot and a read with a cursor as the
 * changes since it, always in a scrambled order and across small pages, as live APIs do.
 */
export class ScriptedPlatform {
  private readonly records = new Map<string, SourceRecord>();
  private readonly changes: { seq: number; id: string }[] = [];
  private seq = 0;
  /** Every read the service made: the cursor it gave and the mode answered. */
  readonly reads: { cursor: string | null; mode: 'full' | 'delta' | 'rate-limited' }[] = [];
  pageSize = 3;
  /** When set, the next read is refused as rate limited, asking to come back after this many ms. */
  rateLimitOnce: number | undefined;
  /** When set, a read waits here after its first page (the test reads the data set meanwhile). */
  gate: Promise<void> | undefined;
  /** Resolved when a read reaches the gate. */
  private reached: (() => void) | undefined;

  set(id: string, fields: Record<string, unknown>, modified = '2026-01-01T00:00:00Z'): void {
    const data = { id, sourceModifiedDate: modified, ...fields };
    this.records.set(id, { id, sourceModifiedDate: modified, data });
    this.changes.push({ seq: ++this.seq, id });
  }

  delete(id: string): void {
    this.records.delete(id);
    this.changes.push({ seq: ++this.seq, id });
  }

  /** A promise resolved when the next read reaches the gate. */
  atGate(): Promise<void> {
    return new Promise((resolve) => (this.reached = resolve));
  }

  connector(key: string): Connector {
    const invoices = accountingSandbox.dataTypes.get('invoices')!;
    const declaration = declarePlatform({
      key,
      name: `Scripted ${key}`,
      sourceType: 'Accounting',
      brandColour: '#444444',
      authorization: { kind: 'none' },
      dataTypes: { invoices: { features: ['Get'] } },
    });
    return platformConnector(declaration, {
      // Nothing to sign in to.
      link: async () => ({ settings: {}, credentials: null }),
      dataTypes: new Map([
        [
          'invoices',
          { dataType: 'invoices', typeName: invoices.typeName, schema: invoices.schema, read: (ctx: ReadContext) => this.read(ctx) },
        ],
      ]),
    });
  }

  private read(ctx: ReadContext): DataTypeRead {
    if (this.rateLimitOnce !== undefined) {
      const wait = this.rateLimitOnce;
      this.rateLimitOnce = undefined;
      this.reads.push({ cursor: ctx.cursor, mode: 'rate-limited' });
      throw new ConnectorError('rate-limited', 'Scripted is limiting requests (HTTP 429)', undefined, wait);
    }
    const at = this.seq;
    const since = ctx.cursor === null ? null : Number(ctx.cursor);
    const mode = since === null ? 'full' : 'delta';
    this.reads.push({ cursor: ctx.cursor, mode });
    let records: SourceRecord[];
    let deleted: string[] = [];
    if (since === null) records = [...this.records.values()];
    else {
      const touched = [...new Set(this.changes.filter((c) => c.seq > since).map((c) => c.id))];
      records = touched.filter((id) => this.records.has(id)).map((id) => this.records.get(id)!);
      deleted = touched.filter((id) => !this.records.has(id));
    }
    // Newest first by a hash of the id: nothing like id order.
    const scrambled = records.sort((a, b) => scramble(a.id) - scramble(b.id));
    const self = this;
    async function* pages(): AsyncGenerator<RecordPage> {
      for (let i = 0; i < Math.max(scrambled.length, 1); i += self.pageSize) {
        const last = i + self.pageSize >= scrambled.length;
        yield { records: scrambled.slice(i, i + self.pageSize), deleted: last && mode === 'delta' ? deleted : undefined };
        if (i === 0 && self.gate) {
          self.reached?.();
          await self.gate;
        }
      }
    }
    return { mode, ordered: false, pages: pages(), nextCursor: () => String(at) };
  }
}

function scramble(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h >>> 0;
}
