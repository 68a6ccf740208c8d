import type { DataTypeSource, OAuthTokens } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { oauthCodeFlow, revokeToken, vendorEndpoint } from '../oauth/oauth-client.js';
import { platformRequest } from '../platform-http.js';
import {
  AccountSchema,
  CompanyInfoSchema,
  ItemSchema,
  JournalEntrySchema,
  TaxRateSchema,
  TrackingCategorySchema,
} from '../../codat-model/accounting/ledger.js';
import { CreditNoteSchema, CustomerSchema, InvoiceSchema, PaymentSchema } from '../../codat-model/accounting/sales.js';
import { BillCreditNoteSchema, BillPaymentSchema, BillSchema, SupplierSchema } from '../../codat-model/accounting/purchases.js';
import { AccountTransactionSchema, BankAccountSchema, DirectCostSchema, DirectIncomeSchema } from '../../codat-model/accounting/banking.js';
import { XERO_HOOKS, xeroInstant } from './xero-api.js';
import { balanceSheetRecords, monthEndBefore, monthStartBefore, profitAndLossRecords } from './xero-reports.js';
import { BalanceSheetSchema, ProfitAndLossSchema } from '../../codat-model/accounting/reports.js';
import * as map from './xero-records.js';
import { collectionSource, collectionsSource, documentSource, journalSource } from './xero-sources.js';
import { xeroWrites } from './xero-writes.js';
import { XERO } from './platform.js';
import { platformConnector } from '../platform-connector.js';
import { clockFor } from '../../lib/clock.js';

/**
 * Xero (`gbol`): the Accounting API of one organisation (tenant) per connection, behind OAuth2 with PKCE. Reads are
 * incremental where Xero keeps `UpdatedDateUTC` (`If-Modified-Since`); limits per tenant are kept and read back
 * from Xero's headers. See docs/connectors/xero.md for the mapping, field by field.
 */

const deleted = (x: map.XeroRecord) => x.Status === 'DELETED';
const invoiceLike = { resource: 'Invoices', collection: 'Invoices', idField: 'InvoiceID', paged: true, gone: deleted };
const creditNoteLike = {
  resource: 'CreditNotes',
  collection: 'CreditNotes',
  idField: 'CreditNoteID',
  paged: true,
  gone: deleted,
};
const contactLike = {
  resource: 'Contacts',
  collection: 'Contacts',
  idField: 'ContactID',
  paged: true,
  includeArchived: true,
};
const paymentLike = { resource: 'Payments', collection: 'Payments', idField: 'PaymentID', paged: true, gone: deleted };
// A voided bank transaction is off the books: Codat's direct costs and incomes have no status to say so.
const bankTransactionLike = {
  resource: 'BankTransactions',
  collection: 'BankTransactions',
  idField: 'BankTransactionID',
  paged: true,
  gone: (x: map.XeroRecord) => x.Status === 'DELETED' || x.Status === 'VOIDED',
};
const accountLike = { resource: 'Accounts', collection: 'Accounts', idField: 'AccountID', paged: false, gone: deleted };

const sources: DataTypeSource[] = [
  collectionSource({
    ...invoiceLike,
    dataType: 'invoices',
    typeName: 'Invoice',
    schema: InvoiceSchema,
    where: 'Type=="ACCREC"',
    map: map.invoiceRecord,
  }),
  collectionSource({
    ...invoiceLike,
    dataType: 'bills',
    typeName: 'Bill',
    schema: BillSchema,
    where: 'Type=="ACCPAY"',
    map: map.billRecord,
  }),
  collectionSource({
    ...creditNoteLike,
    dataType: 'creditNotes',
    typeName: 'CreditNote',
    schema: CreditNoteSchema,
    where: 'Type=="ACCRECCREDIT"',
    map: map.creditNoteRecord,
  }),
  collectionSource({
    ...creditNoteLike,
    dataType: 'billCreditNotes',
    typeName: 'BillCreditNote',
    schema: BillCreditNoteSchema,
    where: 'Type=="ACCPAYCREDIT"',
    map: map.billCreditNoteRecord,
  }),
  collectionSource({
    ...contactLike,
    dataType: 'customers',
    typeName: 'Customer',
    schema: CustomerSchema,
    keep: map.isCustomer,
    map: map.customerRecord,
  }),
  collectionSource({
    ...contactLike,
    dataType: 'suppliers',
    typeName: 'Supplier',
    schema: SupplierSchema,
    keep: map.isSupplier,
    map: map.supplierRecord,
  }),
  collectionSource({
    ...paymentLike,
    dataType: 'payments',
    typeName: 'Payment',
    schema: PaymentSchema,
    keep: (x) => map.SALES_PAYMENT_TYPES.has(x.PaymentType),
    map: map.paymentRecord,
  }),
  collectionSource({
    ...paymentLike,
    dataType: 'billPayments',
    typeName: 'BillPayment',
    schema: BillPaymentSchema,
    keep: (x) => map.PURCHASE_PAYMENT_TYPES.has(x.PaymentType),
    map: map.billPaymentRecord,
  }),
  collectionSource({ ...accountLike, dataType: 'chartOfAccounts', typeName: 'Account', schema: AccountSchema, map: map.accountRecord }),
  collectionSource({
    ...accountLike,
    dataType: 'bankAccounts',
    typeName: 'BankAccount',
    schema: BankAccountSchema,
    where: 'Type=="BANK"',
    map: map.bankAccountRecord,
  }),
  collectionSource({
    resource: 'Items',
    collection: 'Items',
    idField: 'ItemID',
    paged: false,
    dataType: 'items',
    typeName: 'Item',
    schema: ItemSchema,
    map: map.itemRecord,
  }),
  collectionSource({
    resource: 'TaxRates',
    collection: 'TaxRates',
    idField: 'TaxType',
    paged: false,
    dataType: 'taxRates',
    typeName: 'TaxRate',
    schema: TaxRateSchema,
    map: map.taxRateRecord,
  }),
  documentSource({
    dataType: 'trackingCategories',
    typeName: 'TrackingCategory',
    schema: TrackingCategorySchema,
    async records(get) {
      const answer = await get<{ TrackingCategories?: map.XeroRecord[] }>('TrackingCategories?includeArchived=true');
      return (answer.TrackingCategories ?? []).flatMap(map.trackingCategoryRecords);
    },
  }),
  journalSource({ dataType: 'journalEntries', typeName: 'JournalEntry', schema: JournalEntrySchema, map: map.journalEntryRecord }),
  collectionsSource({
    dataType: 'accountTransactions',
    typeName: 'AccountTransaction',
    schema: AccountTransactionSchema,
    parts: [
      { ...paymentLike, map: map.paymentAccountTransaction },
      { ...bankTransactionLike, map: map.bankTransactionAccountTransaction },
    ],
  }),
  collectionSource({
    ...bankTransactionLike,
    dataType: 'directCosts',
    typeName: 'DirectCost',
    schema: DirectCostSchema,
    where: 'Type=="SPEND"',
    map: map.directRecord,
  }),
  collectionSource({
    ...bankTransactionLike,
    dataType: 'directIncomes',
    typeName: 'DirectIncome',
    schema: DirectIncomeSchema,
    where: 'Type=="RECEIVE"',
    map: map.directRecord,
  }),
  documentSource({
    dataType: 'balanceSheet',
    typeName: 'BalanceSheet',
    schema: BalanceSheetSchema,
    async records(get) {
      const accounts = await accountsById(get);
      const today = clockFor({}).now();
      const out = [];
      // Xero answers at most 12 columns a report: two reports make Codat's 24 months.
      for (const back of [0, 12]) {
        const answer = await get<{ Reports?: map.XeroRecord[] }>(
          `Reports/BalanceSheet?date=${monthEndBefore(today, back)}&periods=11&timeframe=MONTH`,
        );
        const report = answer.Reports?.[0];
        if (!report) throw new ConnectorError('unavailable', 'Xero answered Reports/BalanceSheet without a report');
        const ends = Array.from({ length: 12 }, (_, i) => monthEndBefore(today, back + i));
        for (const r of balanceSheetRecords(report, accounts, ends))
          out.push({ ...r, modified: xeroInstant(report.UpdatedDateUTC) ?? null });
      }
      return out;
    },
  }),
  documentSource({
    dataType: 'profitAndLoss',
    typeName: 'ProfitAndLossReport',
    schema: ProfitAndLossSchema,
    async records(get) {
      const accounts = await accountsById(get);
      const today = clockFor({}).now();
      const out = [];
      for (const back of [0, 12]) {
        const from = monthStartBefore(today, back);
        const to = monthEndBefore(today, back);
        const answer = await get<{ Reports?: map.XeroRecord[] }>(
          `Reports/ProfitAndLoss?fromDate=${from}&toDate=${to}&periods=11&timeframe=MONTH`,
        );
        const report = answer.Reports?.[0];
        if (!report) throw new ConnectorError('unavailable', 'Xero answered Reports/ProfitAndLoss without a report');
        const months = Array.from({ length: 12 }, (_, i) => ({
          from: monthStartBefore(today, back + i),
          to: monthEndBefore(today, back + i),
        }));
        for (const r of profitAndLossRecords(report, accounts, months))
          out.push({ ...r, modified: xeroInstant(report.UpdatedDateUTC) ?? null });
      }
      return out;
    },
  }),
  documentSource({
    dataType: 'company',
    typeName: 'CompanyInfo',
    schema: CompanyInfoSchema,
    async records(get, settings) {
      const answer = await get<{ Organisations?: map.XeroRecord[] }>('Organisation');
      const organisation = answer.Organisations?.[0];
      if (!organisation) throw new ConnectorError('unavailable', 'Xero answered /Organisation without the organisation');
      return [{ id: settings.tenantId, data: map.companyRecord(organisation, settings.tenantId) }];
    },
  }),
];

/** The chart of accounts by id: what classifies a report's rows. */
async function accountsById(get: <T>(path: string) => Promise<T>): Promise<Map<string, map.XeroRecord>> {
  const answer = await get<{ Accounts?: map.XeroRecord[] }>('Accounts');
  return new Map((answer.Accounts ?? []).map((a) => [String(a.AccountID), a]));
}

/** Xero's `/connections`: the organisations this consent covers, each a choice. */
async function tenantsOf(tokens: OAuthTokens, connectionsUrl: string) {
  const endpoint = { ...vendorEndpoint('Xero', connectionsUrl), headers: { authorization: `Bearer ${tokens.accessToken}` } };
  const response = await platformRequest(endpoint, 'GET', '');
  if (response.status !== 200) throw new ConnectorError('unavailable', `Xero answered HTTP ${response.status} to /connections`);
  const tenants = JSON.parse(response.body) as { tenantId: string; tenantName?: string; tenantType?: string }[];
  return tenants
    .filter((t) => (t.tenantType ?? 'ORGANISATION') === 'ORGANISATION')
    .map((t) => ({ id: t.tenantId, name: t.tenantName ?? t.tenantId, settings: { tenantId: t.tenantId, tenantName: t.tenantName ?? '' } }));
}

export const xero = platformConnector(XERO, {
  hooks: XERO_HOOKS,
  oauth2: oauthCodeFlow({
    declaration: XERO,
    async link(tokens, _query, config) {
      const choices = await tenantsOf(tokens, config.more.CONNECTIONS_URL);
      return { choices, credentials: tokens };
    },
  }),
  async revoke({ credentials }) {
    const token = credentials.refreshToken;
    if (typeof token === 'string') await revokeToken(XERO, token);
  },
  dataTypes: new Map(sources.map((s) => [s.dataType, s])),
  writes: xeroWrites,
});
