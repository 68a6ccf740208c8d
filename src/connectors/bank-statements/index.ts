import type { TSchema } from '@sinclair/typebox';
import type {
  AcceptedFile,
  DataTypeRead,
  DataTypeSource,
  IncomingFile,
  ReadContext,
  RecordPage,
  SourceRecord,
  UploadedItem,
  UploadSessionType,
} from '../connector.js';
import { FileRefused } from '../connector-error.js';
import { platformConnector } from '../platform-connector.js';
import { BANK_STATEMENT_FILES } from './platform.js';
import type { DataType } from '../../codat-model/data-types.js';
import {
  BankingAccount,
  BankingAccountBalance,
  BankingTransaction,
  BankingTransactionCategory,
} from '../../codat-model/banking/schemas.js';
import {
  bankingReferenceData,
  recordOfLine,
  summaryOf,
  transactionLines,
  warningsOf,
  type StatementSummary,
  type TransactionLine,
  type UploadedSummary,
} from './banking-records.js';
import { mergeById } from '../../lib/merge-by-id.js';
import type { CsvMapping } from './csv.js';
import { CSV_PRESETS } from './csv-presets.js';
import { readStatements } from './read-statements.js';
import { StatementError, type ParsedStatement } from './statement.js';
import { statementReport } from './statement-report.js';

/**
 * Bank statement files (`fstm`): a banking platform whose data is what the company uploads, statement files
 * (OFX/QFX, CAMT.053, MT940, CSV) and Codat's bank statement upload sessions. A connection needs no credentials
 * and is Linked once created. Each sync reads every upload of the connection so far, so the data is the union of
 * all files (ids are stable: see banking-records.ts). See docs/connectors/bank-statements.md.
 */

/** The request's `mapping` part: a CSV column mapping or `{"preset": "<name>"}`. */
function mappingOf(fields: Readonly<Record<string, string>>): CsvMapping | { preset: string } | undefined {
  const text = fields.mapping;
  // A `preset` part names a preset alone (the Link page's CSV layout choice).
  if ((text === undefined || text.trim() === '') && fields.preset) return { preset: fields.preset };
  if (text === undefined || text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FileRefused([
      {
        itemId: 'mapping',
        message: 'mapping: not JSON; send {"preset": "<name>"} or the columns (see docs/connectors/bank-statements.md)',
      },
    ]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FileRefused([{ itemId: 'mapping', message: 'mapping: must be a JSON object, {"preset": "<name>"} or the columns' }]);
  }
  return value as CsvMapping | { preset: string };
}

/**
 * Chunks of 64 KB of transaction lines (see AcceptedFile.records): small enough that the buffers carrying them
 * between threads and into the store stay below the sizes glibc keeps after freeing (a megabyte chunk grew a large
 * import's RSS by 27 MB more).
 */
const CHUNK_CHARS = 65_536;

/** A file's transactions as lines (see TransactionLine) in ascending id order, one JSON array per line, in chunks. */
function* recordChunks(statements: readonly ParsedStatement[]): Generator<string> {
  let lines: string[] = [];
  let size = 0;
  for (const transaction of transactionLines(statements)) {
    const line = JSON.stringify(transaction);
    lines.push(line);
    size += line.length + 1;
    if (size >= CHUNK_CHARS) {
      yield lines.join('\n');
      lines = [];
      size = 0;
    }
  }
  if (lines.length > 0) yield lines.join('\n');
}

/**
 * What a file keeps beside its bytes: its statements without their transactions, and that its records' chunks
 * hold transaction lines in id order. (Files kept before that hold the bare list of statements, and chunks of
 * whole records in the file's order.)
 */
interface KeptStatements {
  order: 'id';
  statements: StatementSummary[];
}

/** Reads every file of one upload; refuses the whole upload, naming each file that is not a readable statement. */
function accept(files: readonly IncomingFile[], fields: Readonly<Record<string, string>>): AcceptedFile[] {
  const mapping = mappingOf(fields);
  const problems: { itemId: string; message: string }[] = [];
  const accepted: AcceptedFile[] = [];
  for (const file of files) {
    try {
      const read = readStatements(file.bytes, mapping);
      if (read.statements.length === 0) throw new StatementError(`no statement in this ${read.format} file`);
      const statements = read.statements.map((s) => statementReport(s));
      accepted.push({
        format: read.format,
        // Kept: the statements without their transactions; the transactions as records, in chunks.
        parsed: JSON.stringify({ order: 'id', statements: read.statements.map(summaryOf) } satisfies KeptStatements),
        report: { format: read.format, statements },
        warnings: statements.filter((s) => s.warning).map((s) => `${file.name}: ${s.warning as string}`),
        records: () => recordChunks(read.statements),
      });
    } catch (err) {
      if (!(err instanceof StatementError)) throw err;
      problems.push({ itemId: file.name, message: `${file.name}: ${err.message}` });
    }
  }
  if (problems.length > 0) throw new FileRefused(problems);
  return accepted;
}

/** Every statement summary and session record uploaded to the connection so far, and the files (for their records). */
async function uploadsOf(ctx: ReadContext) {
  const summaries: UploadedSummary[] = [];
  const files: (UploadedItem & { ordered: boolean })[] = [];
  const sessions: { dataType: string; records: Record<string, unknown>[]; uploaded: string }[] = [];
  let latest = '1970-01-01T00:00:00Z';
  for await (const item of ctx.uploads?.list() ?? []) {
    ctx.signal.throwIfAborted();
    if (item.uploaded > latest) latest = item.uploaded;
    if (item.parsed === null) continue;
    if (item.kind === 'file') {
      const kept = JSON.parse(item.parsed) as KeptStatements | StatementSummary[];
      const statements = Array.isArray(kept) ? kept : kept.statements;
      files.push(Object.assign(item, { ordered: !Array.isArray(kept) && kept.order === 'id' }));
      for (const s of statements) summaries.push(Object.assign(s, { uploaded: item.uploaded }));
    } else {
      sessions.push({ ...(JSON.parse(item.parsed) as { dataType: string; records: Record<string, unknown>[] }), uploaded: item.uploaded });
    }
  }
  return { summaries, files, sessions, latest };
}

function sessionRecord(data: Record<string, unknown>, uploaded: string): SourceRecord {
  const id = String(data.id);
  const sourceModifiedDate = typeof data.sourceModifiedDate === 'string' ? data.sourceModifiedDate : uploaded;
  const { modifiedDate: _served, ...fields } = data;
  return { id, sourceModifiedDate, data: { ...fields, sourceModifiedDate } };
}

/** Accounts, balances or categories: few, from the summaries, then the sessions' (a later upload of an id replaces it). */
function referenceSource(
  dataType: DataType,
  typeName: string,
  schema: TSchema,
  pick: (data: ReturnType<typeof bankingReferenceData>) => SourceRecord[],
): DataTypeSource {
  return {
    dataType,
    typeName,
    schema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const { summaries, sessions, latest } = await uploadsOf(ctx);
      const data = bankingReferenceData(summaries, latest);
      const byId = new Map<string, SourceRecord>();
      for (const record of pick(data)) byId.set(record.id, record);
      for (const session of sessions)
        if (session.dataType === dataType) for (const r of session.records) byId.set(String(r.id), sessionRecord(r, session.uploaded));
      const list = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      async function* pages() {
        for (let i = 0; i < list.length; i += 500) yield { records: list.slice(i, i + 500) };
      }
      return { mode: 'full', ordered: true, pages: pages(), nextCursor: () => null, warnings: () => data.warnings };
    },
  };
}

/** Files (and sessions) whose records a sync merges, one chunk of each in memory; beyond this many it sorts them. */
const MERGE_LIMIT = 64;

/** A file's records, one at a time, chunk by chunk: from its transaction lines, or kept whole (older files). */
async function* fileRecords(file: UploadedItem & { ordered: boolean }, signal: AbortSignal): AsyncGenerator<SourceRecord> {
  for await (const chunk of file.records()) {
    signal.throwIfAborted();
    for (const line of chunk.split('\n'))
      yield file.ordered ? recordOfLine(JSON.parse(line) as TransactionLine, file.uploaded) : (JSON.parse(line) as SourceRecord);
  }
}

async function* inPages(records: AsyncIterable<SourceRecord>): AsyncGenerator<RecordPage> {
  let page: SourceRecord[] = [];
  for await (const record of records) {
    page.push(record);
    if (page.length === 500) {
      yield { records: page };
      page = [];
    }
  }
  if (page.length > 0) yield { records: page };
}

/**
 * Transactions: every file's records, then the sessions', in upload order; a later upload's record of an id
 * replaces an earlier one's (an overlapping file adds nothing twice). Each file keeps its records in id order, so
 * the files (and the sessions, sorted here) are merged into one id-ordered stream that the writer puts in place as
 * it comes. Files kept before records were ordered, or more than MERGE_LIMIT uploads, are delivered as they are,
 * and the writer sorts them, in bounded memory too.
 */
const transactionsSource: DataTypeSource = {
  dataType: 'banking-transactions',
  typeName: 'Transaction',
  schema: BankingTransaction,
  async read(ctx: ReadContext): Promise<DataTypeRead> {
    const { summaries, files, sessions } = await uploadsOf(ctx);
    const warnings = warningsOf(summaries);
    const sessionRecords = sessions
      .filter((s) => s.dataType === 'banking-transactions')
      .map((s) => s.records.map((r) => sessionRecord(r, s.uploaded)));
    const ordered = files.every((f) => f.ordered) && files.length + sessionRecords.length <= MERGE_LIMIT;
    async function* asTheyCome(): AsyncGenerator<SourceRecord> {
      for (const file of files) yield* fileRecords(file, ctx.signal);
      for (const records of sessionRecords) yield* records;
    }
    async function* sorted(records: SourceRecord[]): AsyncGenerator<SourceRecord> {
      // Stable: of a session's repeats of an id, the last stays last (and is the one kept).
      yield* records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    const records = ordered ? mergeById([...files.map((f) => fileRecords(f, ctx.signal)), ...sessionRecords.map(sorted)]) : asTheyCome();
    return { mode: 'full', ordered, pages: inPages(records), nextCursor: () => null, warnings: () => warnings };
  },
};

const sources: DataTypeSource[] = [
  referenceSource('banking-accounts', 'Account', BankingAccount, (d) => d.accounts),
  transactionsSource,
  referenceSource('banking-accountBalances', 'AccountBalance', BankingAccountBalance, (d) => d.balances),
  referenceSource('banking-transactionCategories', 'TransactionCategory', BankingTransactionCategory, (d) => d.categories),
];

const uploadSessions: UploadSessionType[] = [
  { dataType: 'banking-accounts', schema: BankingAccount, page: 'record', accountField: 'id' },
  { dataType: 'banking-transactions', schema: BankingTransaction, page: 'results', accountField: 'accountId' },
];

export const bankStatements = platformConnector(BANK_STATEMENT_FILES, {
  authorization: {
    kind: 'files',
    description:
      'Upload the bank statement files of {company} (OFX/QFX, CAMT.053, MT940 or CSV, as your bank exports them) to share its bank accounts and transactions with {brand}.',
    accept: '.ofx,.qfx,.xml,.sta,.mt940,.940,.txt,.csv',
    choice: {
      name: 'preset',
      legend: 'CSV layout (for CSV files only)',
      default: '',
      options: [
        { value: '', label: 'Recognise it from the header' },
        ...Object.entries(CSV_PRESETS).map(([name, preset]) => ({ value: name, label: preset.label })),
      ],
    },
  },
  dataTypes: new Map(sources.map((s) => [s.dataType, s])),
  files: { accept },
  uploadSessions,
});
