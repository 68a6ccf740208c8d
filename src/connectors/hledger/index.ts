import type { TSchema } from '@sinclair/typebox';
import type { DataTypeRead, DataTypeSource, LinkContext, LinkResult, ReadContext, SourceRecord } from '../connector.js';
import { ConnectorError, isConnectorError } from '../connector-error.js';
import type { DataType } from '../../codat-model/data-types.js';
import { checkAddress } from '../platform-http.js';
import { monthlyStatements } from '../statements/monthly-statements.js';
import { AccountSchema, CompanyInfoSchema, JournalEntrySchema, JournalSchema } from '../../codat-model/accounting/ledger.js';
import { AccountTransactionSchema } from '../../codat-model/accounting/banking.js';
import { BalanceSheetSchema, CashFlowStatementSchema, ProfitAndLossSchema } from '../../codat-model/accounting/reports.js';
import * as api from './hledger-api.js';
import {
  accountRecords,
  accountTransactionRecords,
  companyRecord,
  journalEntryRecords,
  journalRecords,
  ledgerOf,
} from './hledger-records.js';
import { journalEntryWrites } from './hledger-writes.js';
import { HLEDGER } from './platform.js';
import { platformConnector } from '../platform-connector.js';

/**
 * hledger (`hldg`): a plain-text accounting journal served by `hledger-web --serve-api`. Every read is a full
 * snapshot (hledger-web has no paging and no change feed); records are put in id order before they are handed
 * over. See docs/connectors/hledger.md.
 */

/** One read of the journal, shared by the data types a sync reads from it. */
async function journal(ctx: ReadContext) {
  const endpoint = api.endpointOf(
    ctx.settings as unknown as api.HledgerSettings,
    ctx.credentials as api.HledgerCredentials | null,
    ctx.allowPrivate,
    ctx.signal,
  );
  const [accountNames, transactions] = await Promise.all([api.accountNames(endpoint), api.transactions(endpoint)]);
  return { accountNames, transactions, url: (ctx.settings as unknown as api.HledgerSettings).url };
}

function source(
  dataType: DataType,
  typeName: string,
  schema: TSchema,
  records: (j: Awaited<ReturnType<typeof journal>>) => SourceRecord[],
): DataTypeSource {
  return {
    dataType,
    typeName,
    schema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const list = records(await journal(ctx)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      async function* pages() {
        for (let i = 0; i < list.length; i += 500) yield { records: list.slice(i, i + 500) };
      }
      return { mode: 'full', ordered: true, pages: pages(), nextCursor: () => null };
    },
  };
}

function statements(j: Awaited<ReturnType<typeof journal>>) {
  const { accounts, postings } = ledgerOf(j.accountNames, j.transactions);
  const latest = j.transactions.reduce((max, t) => (t.tdate > max ? t.tdate : max), '1970-01-01');
  return monthlyStatements(accounts, postings, `${latest}T00:00:00Z`);
}

const sources: DataTypeSource[] = [
  source('chartOfAccounts', 'Account', AccountSchema, (j) => accountRecords(j.accountNames, j.transactions)),
  source('journalEntries', 'JournalEntry', JournalEntrySchema, (j) => journalEntryRecords(j.transactions)),
  source('journals', 'Journal', JournalSchema, (j) => journalRecords(j.transactions)),
  source('accountTransactions', 'AccountTransaction', AccountTransactionSchema, (j) =>
    accountTransactionRecords(j.accountNames, j.transactions),
  ),
  source('company', 'CompanyInfo', CompanyInfoSchema, (j) => [companyRecord(j.url, j.transactions)]),
  source('balanceSheet', 'BalanceSheet', BalanceSheetSchema, (j) => statements(j).balanceSheet),
  source('profitAndLoss', 'ProfitAndLossReport', ProfitAndLossSchema, (j) => statements(j).profitAndLoss),
  source('cashFlowStatement', 'CashFlowStatement', CashFlowStatementSchema, (j) => statements(j).cashFlowStatement),
];

/** `{"url": "http://127.0.0.1:5000", "username"?, "password"?}`: the address must answer hledger-web's `/version`. */
async function link(input: Record<string, unknown>, ctx: LinkContext): Promise<LinkResult> {
  const url = typeof input.url === 'string' ? input.url.trim().replace(/\/+$/, '') : '';
  if (!url) throw new ConnectorError('invalid', 'url is required: the address hledger-web answers at (e.g. http://127.0.0.1:5000)', 'url');
  const username = typeof input.username === 'string' && input.username !== '' ? input.username : undefined;
  const password = typeof input.password === 'string' ? input.password : undefined;
  const credentials = username ? { username, password: password ?? '' } : null;
  const endpoint = { ...api.endpointOf({ url }, credentials, ctx.allowPrivate), attempts: 1, timeoutMs: 10_000 };
  try {
    checkAddress(endpoint);
    const answered = await api.version(endpoint);
    if (typeof answered !== 'string') throw new ConnectorError('invalid', `${url} answered /version, but not as hledger-web does`, 'url');
  } catch (err) {
    if (!isConnectorError(err)) throw err;
    const field = err.kind === 'unauthorized' ? 'password' : 'url';
    throw new ConnectorError(err.kind, err.message, field);
  }
  return { settings: { url }, credentials };
}

export const hledger = platformConnector(HLEDGER, {
  link,
  dataTypes: new Map(sources.map((s) => [s.dataType, s])),
  writes: journalEntryWrites,
});
