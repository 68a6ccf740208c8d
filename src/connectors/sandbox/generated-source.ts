import type { TSchema } from '@sinclair/typebox';
import type { Connector, DataTypeRead, DataTypeSource, ReadContext, RecordPage, SourceRecord, WrittenRecord } from '../connector.js';
import type { DataType } from '../../codat-model/data-types.js';

/** Settings of a linked Sandbox connection, fixed at authorisation. */
export interface ConnectionSettings {
  /** Seeds the Sandbox's generator. */
  seed: number;
  /** Number of invoices at epoch 0; other data types scale with it. */
  invoices: number;
  /** Day the company's data runs up to (`YYYY-MM-DD`); records are dated across several years before it. */
  asOf: string;
}

/**
 * What a Sandbox generator is given. Everything it returns is a pure function of these values, so a Sandbox
 * company is reproducible and the same sync twice gives the same records.
 */
export interface FetchContext {
  settings: ConnectionSettings;
  /**
   * How many syncs of this data type on this connection completed before this one (0 for the first).
   * The Sandbox's data moves with it: each later epoch adds, changes and deletes some records.
   */
  epoch: number;
}

/** A Sandbox data type as its generator module declares it. */
export interface GeneratedSource {
  dataType: DataType;
  typeName: string;
  schema: TSchema;
  /**
   * Every record of the data type at `ctx.epoch`, in ascending `id` order (plain string comparison), produced
   * lazily so memory stays flat at any size. Records deleted at the source are simply absent.
   */
  fetch(ctx: FetchContext): Iterable<SourceRecord>;
}

/** A Sandbox data type behind the connector interface; it keeps its generator for the Sandbox's own tests. */
export type SandboxSource = GeneratedSource & DataTypeSource;

const PAGE = 500;

/**
 * Puts a generator behind the connector interface: every read is a full snapshot in id order (the generator's
 * order), in pages of 500, with the records written through the service applied; a Sandbox has no cursor.
 */
export function sandboxSource(generated: GeneratedSource): SandboxSource {
  const stream = (ctx: ReadContext) => mergeWritten(generated.fetch(fetchContext(ctx)), ctx.written);
  return {
    ...generated,
    read(ctx: ReadContext): DataTypeRead {
      return { mode: 'full', ordered: true, pages: pagesOf(stream(ctx), ctx.signal), nextCursor: () => null };
    },
    async find(ctx: ReadContext, ids: ReadonlySet<string>) {
      return findInStream(stream(ctx), ids);
    },
  };
}

/** The Sandbox sources of a connector, keyed by data type. */
export function sandboxSources(generated: readonly GeneratedSource[]): ReadonlyMap<DataType, SandboxSource> {
  return new Map(generated.map((g) => [g.dataType, sandboxSource(g)]));
}

function fetchContext(ctx: ReadContext): FetchContext {
  return { settings: ctx.settings as unknown as ConnectionSettings, epoch: Math.max(0, Math.floor(ctx.epoch)) };
}

async function* pagesOf(records: Iterable<SourceRecord>, signal: AbortSignal): AsyncGenerator<RecordPage> {
  let page: SourceRecord[] = [];
  for (const record of records) {
    page.push(record);
    if (page.length === PAGE) {
      signal.throwIfAborted();
      yield { records: page };
      page = [];
    }
  }
  if (page.length > 0) yield { records: page };
}

/**
 * The generated records with the written ones applied, still in ascending id order: a written id replaces the
 * generated record of that id (or removes it when deleted), and new ids are slotted in. `written` must be sorted
 * by id in the same byte order as the generator's.
 */
export function* mergeWritten(generated: Iterable<SourceRecord>, written: readonly WrittenRecord[]): Generator<SourceRecord> {
  let w = 0;
  for (const record of generated) {
    while (w < written.length && written[w].id < record.id) {
      if (written[w].record) yield written[w].record as SourceRecord;
      w++;
    }
    if (w < written.length && written[w].id === record.id) {
      if (written[w].record) yield written[w].record as SourceRecord;
      w++;
      continue;
    }
    yield record;
  }
  for (; w < written.length; w++) if (written[w].record) yield written[w].record as SourceRecord;
}

/**
 * Finds the records with the given ids in a platform's id-ordered stream, stopping once the largest id is
 * passed. Ids that are absent map to undefined.
 */
export function findInStream(stream: Iterable<SourceRecord>, ids: ReadonlySet<string>): Map<string, SourceRecord> {
  const found = new Map<string, SourceRecord>();
  if (ids.size === 0) return found;
  let largest = '';
  for (const id of ids) if (id > largest) largest = id;
  for (const record of stream) {
    if (ids.has(record.id)) found.set(record.id, record);
    if (found.size === ids.size || record.id >= largest) break;
  }
  return found;
}

/** A Sandbox platform: a connector whose data types keep their generators. */
export interface SandboxConnector extends Connector {
  dataTypes: ReadonlyMap<DataType, SandboxSource>;
}
