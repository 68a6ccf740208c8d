import type { TSchema } from '@sinclair/typebox';
import type { AcceptedFile, Connector, DataTypeRead, DataTypeSource, IncomingFile, ReadContext, SourceRecord, UploadSessionType } from '../connector.js';
import { FileRefused } from '../connector-error.js';
import type { DataType } from '../data-types.js';
import { BankingAccount, BankingAccountBalance, BankingTransaction, BankingTransactionCategory } from '../sandbox/banking/schemas.js';
import { bankingData, type BankingData, type UploadedStatement } from './banking-records.js';
import { CSV_PRESETS, type CsvMapping } from './csv.js';
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
    throw new FileRefused([{ itemId: 'mapping', message: 'mapping: not JSON; send {"preset": "<name>"} or the columns (see docs/connectors/bank-statements.md)' }]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FileRefused([{ itemId: 'mapping', message: 'mapping: must be a JSON object, {"preset": "<name>"} or the columns' }]);
  }
  return value as CsvMapping | { preset: string };
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
        parsed: JSON.stringify(read.statements),
        report: { format: read.format, statements },
        warnings: statements.filter((s) => s.warning).map((s) => `${file.name}: ${s.warning as string}`),
      });
    } catch (err) {
      if (!(err instanceof StatementError)) throw err;
      problems.push({ itemId: file.name, message: `${file.name}: ${err.message}` });
    }
  }
  if (problems.length > 0) throw new FileRefused(problems);
  return accepted;
}

/** Everything uploaded to the connection so far, as statements and session records. */
async function uploadsOf(ctx: ReadContext) {
  const statements: UploadedStatement[] = [];
  const sessions: { dataType: string; records: Record<string, unknown>[]; uploaded: string }[] = [];
  let latest = '1970-01-01T00:00:00Z';
  for await (const item of ctx.uploads?.list() ?? []) {
    ctx.signal.throwIfAborted();
    if (item.uploaded > latest) latest = item.uploaded;
    if (item.parsed === null) continue;
    if (item.kind === 'file') {
      for (const s of JSON.parse(item.parsed) as ParsedStatement[]) statements.push(Object.assign(s, { uploaded: item.uploaded }));
    } else {
      sessions.push({ ...(JSON.parse(item.parsed) as { dataType: string; records: Record<string, unknown>[] }), uploaded: item.uploaded });
    }
  }
  return { statements, sessions, latest };
}

/** Records of one data type: from the files, then from upload sessions (a later upload of an id replaces it). */
function source(dataType: DataType, typeName: string, schema: TSchema, pick: (data: BankingData) => SourceRecord[]): DataTypeSource {
  return {
    dataType,
    typeName,
    schema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const { statements, sessions, latest } = await uploadsOf(ctx);
      const byId = new Map<string, SourceRecord>();
      const data = bankingData(statements, latest, { transactions: dataType === 'banking-transactions' });
      for (const record of pick(data)) byId.set(record.id, record);
      for (const session of sessions) {
        if (session.dataType !== dataType) continue;
        for (const data of session.records) {
          const id = String(data.id);
          const sourceModifiedDate = typeof data.sourceModifiedDate === 'string' ? data.sourceModifiedDate : session.uploaded;
          const { modifiedDate: _served, ...fields } = data;
          byId.set(id, { id, sourceModifiedDate, data: { ...fields, sourceModifiedDate } });
        }
      }
      const list = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      async function* pages() {
        for (let i = 0; i < list.length; i += 500) yield { records: list.slice(i, i + 500) };
      }
      return { mode: 'full', ordered: true, pages: pages(), nextCursor: () => null, warnings: () => data.warnings };
    },
  };
}

const sources: DataTypeSource[] = [
  source('banking-accounts', 'Account', BankingAccount, (d) => d.accounts),
  source('banking-transactions', 'Transaction', BankingTransaction, (d) => d.transactions),
  source('banking-accountBalances', 'AccountBalance', BankingAccountBalance, (d) => d.balances),
  source('banking-transactionCategories', 'TransactionCategory', BankingTransactionCategory, (d) => d.categories),
];

const uploadSessions: UploadSessionType[] = [
  { dataType: 'banking-accounts', schema: BankingAccount, page: 'record', accountField: 'id' },
  { dataType: 'banking-transactions', schema: BankingTransaction, page: 'results', accountField: 'accountId' },
];

const PRESET_LABELS: Record<string, string> = {
  'schwab-checking': 'Charles Schwab Bank checking (US)',
  'gls': 'GLS Bank (DE)',
  'ubs-ch-fr': 'UBS (CH), French',
};

export const bankStatements: Connector = {
  info: { key: 'fstm', name: 'Bank statement files', sourceType: 'Banking', brandColour: '#5b6770', dataTypes: sources.map((s) => s.dataType) },
  authorization: {
    kind: 'files',
    description: 'Upload the bank statement files of {company} (OFX/QFX, CAMT.053, MT940 or CSV, as your bank exports them) to share its bank accounts and transactions with {brand}.',
    accept: '.ofx,.qfx,.xml,.sta,.mt940,.940,.txt,.csv',
    choice: {
      name: 'preset',
      legend: 'CSV layout (for CSV files only)',
      default: '',
      options: [
        { value: '', label: 'Recognise it from the header' },
        ...Object.keys(CSV_PRESETS).map((name) => ({ value: name, label: PRESET_LABELS[name] ?? name })),
      ],
    },
  },
  dataTypes: new Map(sources.map((s) => [s.dataType, s])),
  files: { accept },
  uploadSessions,
};
