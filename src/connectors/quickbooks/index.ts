import type { DataTypeRead, DataTypeSource, OAuthTokens, ReadContext, RecordPage } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { oauthCodeFlow, revokeToken, type OAuthPlatformConfig } from '../oauth/oauth-client.js';
import { platformRequest } from '../platform-http.js';
import { AccountSchema, CompanyInfoSchema, ItemSchema, JournalEntrySchema, TaxRateSchema } from '../../codat-model/accounting/ledger.js';
import { CreditNoteSchema, CustomerSchema, InvoiceSchema, PaymentSchema } from '../../codat-model/accounting/sales.js';
import { BillCreditNoteSchema, BillPaymentSchema, BillSchema, SupplierSchema } from '../../codat-model/accounting/purchases.js';
import { BalanceSheetSchema, ProfitAndLossSchema } from '../../codat-model/accounting/reports.js';
import { AccountTransactionSchema, BankAccountSchema } from '../../codat-model/accounting/banking.js';
import {
  companyUrl,
  QBO_HOOKS,
  qboGet,
  qboInstant,
  queryPages,
  realmOf,
  type IntuitResponse,
  type QboEntity,
  type QboRealm,
} from './qbo-api.js';
import {
  ANSWER_NAME,
  accountTransactionRecord,
  BANK_ACCOUNT_TYPES,
  bankAccountRecord,
  MOVEMENT_ENTITIES,
  movementSides,
  type MovementContext,
} from './qbo-bank-movements.js';
import * as map from './qbo-records.js';
import { allOf, documentSource, entitySource, sourceRecord } from './qbo-sources.js';
import { qboWrites } from './qbo-writes.js';
import { balanceSheetRecords, profitAndLossRecords, reportParams } from './qbo-reports.js';
import { QUICKBOOKS } from './platform.js';
import { declaredEndpoint } from '../platform-runtime.js';
import { platformConnector } from '../platform-connector.js';
import { clockFor } from '../../lib/clock.js';

/**
 * QuickBooks Online (`qhyg`): the Accounting API (v3) of one company (realm) per connection, behind Intuit's OAuth2.
 * Full reads use the query language; later reads ask change data capture for what changed, while it reaches back
 * to the cursor (30 days). See docs/connectors/quickbooks.md for the mapping, field by field.
 */

const sources: DataTypeSource[] = [
  entitySource({ dataType: 'invoices', typeName: 'Invoice', schema: InvoiceSchema, entity: 'Invoice', map: map.invoiceRecord }),
  entitySource({ dataType: 'bills', typeName: 'Bill', schema: BillSchema, entity: 'Bill', map: map.billRecord }),
  entitySource({
    dataType: 'customers',
    typeName: 'Customer',
    schema: CustomerSchema,
    entity: 'Customer',
    inactiveToo: true,
    map: map.customerRecord,
  }),
  entitySource({
    dataType: 'suppliers',
    typeName: 'Supplier',
    schema: SupplierSchema,
    entity: 'Vendor',
    inactiveToo: true,
    map: map.supplierRecord,
  }),
  entitySource({
    dataType: 'chartOfAccounts',
    typeName: 'Account',
    schema: AccountSchema,
    entity: 'Account',
    inactiveToo: true,
    map: map.accountRecord,
  }),
  entitySource({ dataType: 'payments', typeName: 'Payment', schema: PaymentSchema, entity: 'Payment', map: map.paymentRecord }),
  entitySource({
    dataType: 'creditNotes',
    typeName: 'CreditMemo',
    schema: CreditNoteSchema,
    entity: 'CreditMemo',
    map: map.creditNoteRecord,
  }),
  entitySource({
    dataType: 'billCreditNotes',
    typeName: 'VendorCredit',
    schema: BillCreditNoteSchema,
    entity: 'VendorCredit',
    map: map.billCreditNoteRecord,
  }),
  entitySource({
    dataType: 'billPayments',
    typeName: 'BillPayment',
    schema: BillPaymentSchema,
    entity: 'BillPayment',
    map: map.billPaymentRecord,
  }),
  entitySource({
    dataType: 'journalEntries',
    typeName: 'JournalEntry',
    schema: JournalEntrySchema,
    entity: 'JournalEntry',
    map: map.journalEntryRecord,
  }),
  entitySource({ dataType: 'items', typeName: 'Item', schema: ItemSchema, entity: 'Item', inactiveToo: true, map: map.itemRecord }),
  // Tax codes and rates are not in change data capture: read whole, and small.
  documentSource({
    dataType: 'taxRates',
    typeName: 'TaxRate',
    schema: TaxRateSchema,
    async records(realm) {
      const rates = new Map((await allOf(realm, 'TaxRate', 'Active IN (true, false)')).map((r) => [String(r.Id), r]));
      const codes = await allOf(realm, 'TaxCode', 'Active IN (true, false)');
      return codes.map((code) => {
        const id = String(code.Id);
        const modified = qboInstant(code.MetaData?.LastUpdatedTime) ?? null;
        return sourceRecord(id, modified, map.taxRateRecord(code, rates));
      });
    },
  }),
  // Accounts of type Bank and Credit Card, inactive ones too: a short list, read whole.
  documentSource({
    dataType: 'bankAccounts',
    typeName: 'BankAccount',
    schema: BankAccountSchema,
    async records(realm) {
      return (await bankAccounts(realm)).map((a) =>
        sourceRecord(String(a.Id), qboInstant(a.MetaData?.LastUpdatedTime) ?? null, bankAccountRecord(a)),
      );
    },
  }),
  accountTransactionsSource(),
  // QuickBooks' own reports, one Money column a month over Codat's 24 months, classified by the chart of accounts.
  documentSource({
    dataType: 'balanceSheet',
    typeName: 'BalanceSheet',
    schema: BalanceSheetSchema,
    async records(realm) {
      const report = await monthlyReport(realm, 'BalanceSheet');
      return balanceSheetRecords(report, await accountsById(realm)).map((r) => sourceRecord(r.id, reportTime(report), r.data));
    },
  }),
  documentSource({
    dataType: 'profitAndLoss',
    typeName: 'ProfitAndLossReport',
    schema: ProfitAndLossSchema,
    async records(realm) {
      const report = await monthlyReport(realm, 'ProfitAndLoss');
      return profitAndLossRecords(report, await accountsById(realm)).map((r) => sourceRecord(r.id, reportTime(report), r.data));
    },
  }),
  documentSource({
    dataType: 'company',
    typeName: 'CompanyInfo',
    schema: CompanyInfoSchema,
    async records(realm, settings) {
      const info = (await qboGet<IntuitResponse>(realm, `companyinfo/${encodeURIComponent(settings.realmId)}`)).CompanyInfo as
        QboEntity | undefined;
      if (!info) throw new ConnectorError('unavailable', 'QuickBooks Online answered /companyinfo without the company');
      // The home currency is a preference, not part of the company's details.
      const preferences = (await qboGet<IntuitResponse>(realm, 'preferences')).Preferences as QboEntity | undefined;
      const currency = preferences?.CurrencyPrefs?.HomeCurrency?.value as string | undefined;
      const modified = qboInstant(info.MetaData?.LastUpdatedTime) ?? null;
      return [sourceRecord(settings.realmId, modified, map.companyRecord(info, settings.realmId, currency))];
    },
  }),
];

/** The bank and credit card accounts, inactive ones too. */
async function bankAccounts(realm: QboRealm): Promise<QboEntity[]> {
  const types = BANK_ACCOUNT_TYPES.map((t) => `'${t}'`).join(', ');
  return allOf(realm, 'Account', `Active IN (true, false) AND AccountType IN (${types})`);
}

/**
 * `accountTransactions`: every payment, bill payment, deposit, purchase, transfer, sales receipt and refund receipt
 * that moved money through a bank or credit card account, read in full each sync, page by page, one entity after
 * another (docs/connectors/quickbooks.md).
 */
function accountTransactionsSource(): DataTypeSource {
  return {
    dataType: 'accountTransactions',
    typeName: 'AccountTransaction',
    schema: AccountTransactionSchema,
    async read(ctx: ReadContext): Promise<DataTypeRead> {
      const realm = realmOf(ctx);
      const preferences = (await qboGet<IntuitResponse>(realm, 'preferences')).Preferences as QboEntity | undefined;
      const company: MovementContext = {
        bankAccounts: new Map((await bankAccounts(realm)).map((a) => [String(a.Id), a])),
        homeCurrency: preferences?.CurrencyPrefs?.HomeCurrency?.value as string | undefined,
      };
      async function* pages(): AsyncIterable<RecordPage> {
        for (const entity of MOVEMENT_ENTITIES) {
          for await (const page of queryPages(realm, entity, { answerName: ANSWER_NAME[entity] })) {
            yield {
              records: page.records.flatMap((x) =>
                movementSides(entity, x, company).map((side) =>
                  sourceRecord(side.id, qboInstant(x.MetaData?.LastUpdatedTime) ?? null, accountTransactionRecord(x, side, company)),
                ),
              ),
            };
          }
        }
      }
      return { mode: 'full', ordered: false, pages: pages(), nextCursor: () => null };
    },
  };
}

/** A report by month over Codat's window (month ends from today), accrual basis. */
async function monthlyReport(realm: QboRealm, name: 'BalanceSheet' | 'ProfitAndLoss'): Promise<QboEntity> {
  const report = await qboGet<QboEntity>(realm, `reports/${name}`, reportParams(clockFor({}).now()));
  if (!report?.Columns || !report.Rows)
    throw new ConnectorError('unavailable', `QuickBooks Online answered reports/${name} without its columns and rows`);
  return report;
}

/** When QuickBooks made the report. */
function reportTime(report: QboEntity): string | null {
  return qboInstant(report.Header?.Time) ?? null;
}

/** The chart of accounts by Id, inactive accounts too: what classifies a report's rows. */
async function accountsById(realm: QboRealm): Promise<Map<string, QboEntity>> {
  return new Map((await allOf(realm, 'Account', 'Active IN (true, false)')).map((a) => [String(a.Id), a]));
}

/** The company's name as QuickBooks has it, asked with the new token; a link does not fail for want of it. */
async function companyNameOf(tokens: OAuthTokens, realmId: string, config: OAuthPlatformConfig): Promise<string | undefined> {
  // The token just granted, before the connection keeps it; the declared minor version, as on every call.
  const endpoint = declaredEndpoint(QUICKBOOKS, {
    baseUrl: companyUrl(config, realmId),
    account: realmId,
    headers: { authorization: `Bearer ${tokens.accessToken}` },
  });
  const path = `companyinfo/${encodeURIComponent(realmId)}`;
  try {
    const response = await platformRequest(endpoint, 'GET', path);
    if (response.status !== 200) return undefined;
    const name = (JSON.parse(response.body) as IntuitResponse).CompanyInfo as QboEntity | undefined;
    return typeof name?.CompanyName === 'string' ? name.CompanyName : undefined;
  } catch {
    // Refused (401, 403), failing (5xx, a timeout) or not JSON: the link stands without the name.
    return undefined;
  }
}

export const quickbooks = platformConnector(QUICKBOOKS, {
  hooks: QBO_HOOKS,
  oauth2: oauthCodeFlow({
    declaration: QUICKBOOKS,
    async link(tokens, query, config) {
      // Intuit names the company the user chose on its consent page in the redirect, beside the code.
      const realmId = query.realmId;
      if (!realmId) throw new ConnectorError('invalid', 'QuickBooks Online did not say which company was connected (no realmId)');
      const companyName = await companyNameOf(tokens, realmId, config);
      return { settings: { realmId, ...(companyName ? { companyName } : {}) }, credentials: tokens };
    },
  }),
  async revoke({ credentials }) {
    const token = credentials.refreshToken;
    // Intuit's revocation endpoint takes JSON; revoking the refresh token ends the access tokens made from it too.
    if (typeof token === 'string') await revokeToken(QUICKBOOKS, token, { body: 'json' });
  },
  dataTypes: new Map(sources.map((s) => [s.dataType, s])),
  writes: qboWrites,
});
