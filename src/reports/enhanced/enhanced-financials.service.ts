import type { Kysely } from 'kysely';
import type { Client } from '../../clients/clients.store.js';
import type { DataType } from '../../codat-model/data-types.js';
import type { CompaniesService } from '../../companies/companies.service.js';
import { companyReference } from '../../companies/company-reference.js';
import { ApiError } from '../../http/api-error.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { boundedCache } from '../../lib/bounded-cache.js';
import { clockFor } from '../../lib/clock.js';
import { negateDecimal } from '../../lib/decimal.js';
import type { RecordReader } from '../../records/record-reader.js';
import type { Database } from '../../storage/schema.js';
import { recordEvent } from '../../webhooks/events.js';
import { lockClient } from '../../clients/clients.store.js';
import { connectionOfCompany } from '../../connections/connections.store.js';
import { confirmCategory, confirmedCategories, dropCategory } from '../categories/account-categories.store.js';
import { suggestCategory, type AccountFacts, type SuggestedCategory } from '../categories/account-categorizer.js';
import { categoryPath } from '../categories/account-taxonomy.js';
import { notSynced, parameterError } from '../report-requests.js';
import { enhancedParameters } from './enhanced-parameters.js';
import { monthEndDay } from '../../lib/calendar-date.js';
import {
  BALANCE_SHEET_PARTS,
  PROFIT_AND_LOSS_PARTS,
  CLASS_OF_PART,
  statementLines,
  type AccountLine,
  type StatementPart,
} from './statement-lines.js';

/*
 * The enhanced profit and loss and balance sheet (Codat's categorised financial statements,
 * docs/lending/enhanced-financials.md): every account line of the company's monthly statements, one item per account
 * and month, with the account's category on Codat's v3 taxonomy, suggested by the mapper (categories/) or confirmed
 * by the client. The statements' lines are read once per set of data-set versions and kept; categories confirmed
 * later apply at once, since they are read on every report.
 */

export const ENHANCED_REPORTS = {
  enhancedProfitAndLoss: {
    statement: 'profitAndLoss',
    parts: PROFIT_AND_LOSS_PARTS,
    reportName: 'EnhancedProfitAndLossAccounts',
    dateRequired: false,
  },
  enhancedBalanceSheet: {
    statement: 'balanceSheet',
    parts: BALANCE_SHEET_PARTS,
    reportName: 'EnhancedBalanceSheetAccounts',
    dateRequired: true,
  },
} as const satisfies Record<string, { statement: DataType; parts: readonly StatementPart[]; reportName: string; dateRequired: boolean }>;

export type EnhancedReportName = keyof typeof ENHANCED_REPORTS;

const ACCOUNTS: DataType = 'chartOfAccounts';
const COMPANY_INFO: DataType = 'company';

/** The direction a top-level category's balance is positive in. */
const NATURE: Record<string, 'debit' | 'credit'> = {
  Asset: 'debit',
  Expense: 'debit',
  Liability: 'credit',
  Equity: 'credit',
  Income: 'credit',
};

export interface AccountCategory {
  status: 'Suggested' | 'Confirmed';
  levels: { levelName: string; confidence?: number }[];
  /** Ledgerport's extension: the mapper's rule that suggested it (absent when confirmed). */
  ruleId?: string;
}

export interface EnhancedItem {
  date: string;
  balance: number;
  accountName: string;
  accountId: string;
  accountCategory: AccountCategory;
}

export interface EnhancedReport {
  reportInfo: { reportName: string; companyName: string; currency?: string; generatedDate: string };
  reportItems: EnhancedItem[];
}

/** A connection's statement lines and accounts, read once per set of versions. */
interface ConnectionFacts {
  connectionId: string;
  lines: AccountLine[];
  /**
   * Each account's suggestion, by account id and the class of the statement part it is in (`suggestionKey`): accounts
   * of the chart, and accounts only the statements name.
   */
  suggestions: Map<string, SuggestedCategory>;
}

interface StatementFacts {
  connections: ConnectionFacts[];
  /** The last month any statement has account lines for (month index), if any. */
  lastMonth?: number;
  currency?: string;
}

export interface EnhancedFinancialsDeps {
  db: Kysely<Database>;
  jobs: JobQueue;
  wakeJobs: () => void;
  publicUrl: () => string;
  companies: Pick<CompaniesService, 'owned'>;
  dataSets: {
    syncedByConnection(
      client: Client,
      companyId: string,
      dataTypes: readonly DataType[],
    ): Promise<({ connectionId: string; version: number }[] | undefined)[]>;
  };
  records: Pick<RecordReader, 'allLive' | 'byId'>;
}

const suggested = (s: SuggestedCategory): AccountCategory => ({ status: 'Suggested', levels: s.levels, ruleId: s.ruleId });
const confirmed = (path: string): AccountCategory => ({
  status: 'Confirmed',
  levels: path.split('.').map((levelName) => ({ levelName })),
});

const notFoundConnection = (connectionId: string) => new ApiError(404, `Data connection ${connectionId} not found`);
const notFoundAccount = (accountId: string, connectionId: string) =>
  new ApiError(404, `No account with ID ${accountId} was found in connection ${connectionId}`);

/** How items are ordered: by date, then category path, then account name; ties by account and connection. */
const ORDER = ['date', 'path', 'accountName', 'accountId', 'connectionId'] as const;

const suggestionKey = (accountId: string, part: StatementPart) => `${accountId}\u0000${CLASS_OF_PART[part]}`;

/** The account as the mapper reads it: the chart's record, its class the statement's where they disagree. */
function factsOf(record: AccountFacts | undefined, line: AccountLine): AccountFacts {
  const type = CLASS_OF_PART[line.part];
  if (!record) return { id: line.accountId, name: line.accountName, type };
  return record.type === type ? record : { ...record, type };
}

export function createEnhancedFinancialsService(deps: EnhancedFinancialsDeps) {
  // A company's statements are a few hundred lines a month at most; 64 MiB keeps thousands of companies' worth.
  const kept = boundedCache<StatementFacts>({
    bytes: 64 * 1024 * 1024,
    valueBytes: (f) =>
      512 +
      f.connections.reduce(
        (n, c) =>
          n +
          c.lines.reduce((m, l) => m + 96 + 2 * (l.accountId.length + l.accountName.length + l.value.length), 0) +
          c.suggestions.size * 256,
        0,
      ),
  });
  // Two first requests for the same versions read the statements once.
  const reading = new Map<string, Promise<StatementFacts>>();

  async function readFacts(
    report: EnhancedReportName,
    statements: { connectionId: string; version: number }[],
    accounts: { connectionId: string; version: number }[],
    companyInfo: { connectionId: string; version: number }[] | undefined,
  ): Promise<StatementFacts> {
    const key = [
      report,
      ...statements.map((s) => s.version),
      '|',
      ...accounts.map((a) => a.version),
      '|',
      ...(companyInfo ?? []).map((c) => c.version),
    ].join(' ');
    const cached = kept.get(key);
    if (cached) return cached;
    let pending = reading.get(key);
    if (!pending) {
      pending = readStatements(report, statements, accounts, companyInfo)
        .then((facts) => {
          kept.set(key, facts);
          return facts;
        })
        .finally(() => reading.delete(key));
      reading.set(key, pending);
    }
    return pending;
  }

  async function readStatements(
    report: EnhancedReportName,
    statements: { connectionId: string; version: number }[],
    accounts: { connectionId: string; version: number }[],
    companyInfo: { connectionId: string; version: number }[] | undefined,
  ): Promise<StatementFacts> {
    const parts = ENHANCED_REPORTS[report].parts;
    const connections: ConnectionFacts[] = [];
    let lastMonth: number | undefined;
    let currency: string | undefined;
    for (const info of companyInfo ?? []) {
      const [doc] = await deps.records.allLive([info.version]);
      const base = doc ? (JSON.parse(doc) as { baseCurrency?: unknown }).baseCurrency : undefined;
      if (typeof base === 'string' && base !== '') {
        currency = base;
        break;
      }
    }
    for (const set of statements) {
      const docs = (await deps.records.allLive([set.version])).map((d) => JSON.parse(d) as Record<string, unknown>);
      const lines = docs.flatMap((doc) => statementLines(doc, parts));
      currency ??= docs.map((d) => d.currency).find((c): c is string => typeof c === 'string' && c !== '');
      const chart = new Map<string, AccountFacts>();
      for (const a of accounts.filter((x) => x.connectionId === set.connectionId)) {
        for (const doc of await deps.records.allLive([a.version])) {
          const record = JSON.parse(doc) as AccountFacts & { id?: string };
          if (typeof record.id === 'string') chart.set(record.id, record);
        }
      }
      const suggestions = new Map<string, SuggestedCategory>();
      for (const line of lines) {
        const key = suggestionKey(line.accountId, line.part);
        if (!suggestions.has(key)) suggestions.set(key, suggestCategory(factsOf(chart.get(line.accountId), line)));
        if (lastMonth === undefined || line.month > lastMonth) lastMonth = line.month;
      }
      connections.push({ connectionId: set.connectionId, lines, suggestions });
    }
    return { connections, ...(lastMonth !== undefined ? { lastMonth } : {}), ...(currency ? { currency } : {}) };
  }

  /**
   * The suggestion reports show for an account of a connection: from its statement lines (the profit and loss's, then
   * the balance sheet's), else from the chart of accounts; undefined when neither names it. 404 for a connection not
   * the company's; 409 before the chart of accounts has synced.
   */
  async function suggestionOf(client: Client, companyId: string, connectionId: string, accountId: string) {
    if (!(await connectionOfCompany(deps.db, client.id, companyId, connectionId))) throw notFoundConnection(connectionId);
    const [profitAndLoss, balanceSheet, accounts, companyInfo] = await deps.dataSets.syncedByConnection(client, companyId, [
      'profitAndLoss',
      'balanceSheet',
      ACCOUNTS,
      COMPANY_INFO,
    ]);
    const chart = accounts?.filter((a) => a.connectionId === connectionId);
    if (!chart || chart.length === 0) throw notSynced('accountCategories', [ACCOUNTS]);
    for (const [report, statements] of [
      ['enhancedProfitAndLoss', profitAndLoss],
      ['enhancedBalanceSheet', balanceSheet],
    ] as const) {
      const mine = statements?.filter((x) => x.connectionId === connectionId);
      if (!mine || mine.length === 0) continue;
      const facts = await readFacts(report, mine, chart, companyInfo);
      for (const part of ENHANCED_REPORTS[report].parts) {
        const found = facts.connections[0]?.suggestions.get(suggestionKey(accountId, part));
        if (found) return found;
      }
    }
    const doc = await deps.records.byId(
      chart.map((c) => c.version),
      accountId,
    );
    return doc === undefined ? undefined : suggestCategory(JSON.parse(doc) as AccountFacts);
  }

  /** The category an account shows: the client's where confirmed, else the suggestion. */
  function categoryOf(
    overrides: Map<string, string>,
    connectionId: string,
    accountId: string,
    suggestion: SuggestedCategory,
  ): AccountCategory {
    const path = overrides.get(`${connectionId}\u0000${accountId}`);
    return path !== undefined ? confirmed(path) : suggested(suggestion);
  }

  return {
    /** The report; 400 naming a bad parameter, 404 for an unknown company, 409 before its inputs have synced. */
    async report(client: Client, companyId: string, name: EnhancedReportName, query: Record<string, unknown>): Promise<EnhancedReport> {
      const spec = ENHANCED_REPORTS[name];
      // Whose company it is comes first: another client's is 403 whatever the parameters.
      const company = JSON.parse((await deps.companies.owned(client, companyId)).doc) as { name?: string };
      const parameters = enhancedParameters(query, spec.dateRequired);
      const now = clockFor({ clientId: client.id, companyId }).now();
      const [statements, accounts, companyInfo] = await deps.dataSets.syncedByConnection(client, companyId, [
        spec.statement,
        ACCOUNTS,
        COMPANY_INFO,
      ]);
      const missing = [statements === undefined ? spec.statement : undefined, accounts === undefined ? ACCOUNTS : undefined].filter(
        (t) => t !== undefined,
      );
      if (missing.length > 0) throw notSynced(name, missing);
      const facts = await readFacts(name, statements!, accounts!, companyInfo);
      const overrides = new Map(
        (await confirmedCategories(deps.db, client.id, companyId)).map((o) => [`${o.connectionId}\u0000${o.accountId}`, o.category]),
      );
      const last = parameters.lastMonth ?? facts.lastMonth;
      const items: (EnhancedItem & { path: string; connectionId: string })[] = [];
      if (last !== undefined) {
        const first = last - parameters.numberOfPeriods + 1;
        for (const c of facts.connections) {
          for (const line of c.lines) {
            if (line.month < first || line.month > last) continue;
            const accountCategory = categoryOf(
              overrides,
              c.connectionId,
              line.accountId,
              c.suggestions.get(suggestionKey(line.accountId, line.part))!,
            );
            const top = accountCategory.levels[0]?.levelName ?? '';
            // Positive in the category's normal direction: a line stated the other way round is turned over.
            const value =
              NATURE[top] === undefined || NATURE[top] === NATURE[CLASS_OF_PART[line.part]] ? line.value : negateDecimal(line.value);
            items.push({
              date: `${monthEndDay(line.month)}T00:00:00`,
              balance: Number(value) || 0,
              accountName: line.accountName,
              accountId: line.accountId,
              accountCategory,
              path: accountCategory.levels.map((l) => l.levelName).join('.'),
              connectionId: c.connectionId,
            });
          }
        }
      }
      items.sort((a, b) => {
        for (const key of ORDER) if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
        return 0;
      });
      return {
        reportInfo: {
          reportName: spec.reportName,
          companyName: company.name ?? '',
          ...(facts.currency ? { currency: facts.currency } : {}),
          generatedDate: now.toISOString(),
        },
        reportItems: items.map(({ path: _path, connectionId: _connection, ...item }) => item),
      };
    },

    /**
     * Confirms an account's category (`category` a taxonomy path) or, with `category` null, drops the confirmation;
     * answers the category reports now show for it, and sends `accountCategories.updated` when something changed.
     */
    async setCategory(
      client: Client,
      companyId: string,
      connectionId: string,
      accountId: string,
      category: string | null,
    ): Promise<{ accountId: string; accountCategory: AccountCategory }> {
      await deps.companies.owned(client, companyId);
      let path: string | undefined;
      if (category !== null) {
        path = categoryPath(category)?.join('.');
        if (path === undefined)
          throw parameterError(
            [
              {
                propertyName: 'category',
                details: `category must be a path of Codat's v3 account categories, e.g. Expense.Operating.Travel (got ${JSON.stringify(category.slice(0, 200))}).`,
              },
            ],
            'AccountCategory',
          );
      }
      const suggestion = await suggestionOf(client, companyId, connectionId, accountId);
      // An account neither the statements nor the chart know any more can still lose a confirmation it kept.
      if (suggestion === undefined && path !== undefined) throw notFoundAccount(accountId, connectionId);
      const now = clockFor({ clientId: client.id, companyId }).now().toISOString();
      const accountCategory = path !== undefined ? confirmed(path) : suggested(suggestion ?? suggestCategory({ id: accountId }));
      const changed = await deps.db.transaction().execute(async (trx) => {
        // Serialised with deleting the connection or the company (which lock the client too): no confirmation is left
        // behind for a connection deleted meanwhile.
        await lockClient(trx, client.id);
        if (!(await connectionOfCompany(trx, client.id, companyId, connectionId))) throw notFoundConnection(connectionId);
        const done =
          path !== undefined
            ? (await confirmCategory(trx, client.id, { companyId, connectionId, accountId, category: path, modified: now }), true)
            : await dropCategory(trx, client.id, connectionId, accountId);
        if (!done) return false;
        const company = await companyReference(trx, client.id, companyId, deps.publicUrl());
        await recordEvent(trx, deps.jobs, {
          clientId: client.id,
          companyId,
          companyTags: company.tags,
          eventType: 'accountCategories.updated',
          payload: {
            referenceCompany: company.reference,
            connectionId,
            modifiedDate: now,
            accounts: [{ accountId, accountCategory }],
          },
        });
        return true;
      });
      if (suggestion === undefined && !changed) throw notFoundAccount(accountId, connectionId);
      if (changed) deps.wakeJobs();
      return { accountId, accountCategory };
    },
  };
}

export type EnhancedFinancialsService = ReturnType<typeof createEnhancedFinancialsService>;
