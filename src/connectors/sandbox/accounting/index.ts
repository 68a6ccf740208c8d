import { platformConnector } from '../../platform-connector.js';
import { ACCOUNTING_SANDBOX } from './platform.js';
import { SANDBOX_AUTHORIZATION, linkSandbox } from '../authorization.js';
import { sandboxSources, type GeneratedSource, type SandboxConnector } from '../generated-source.js';
import { bankAccounts } from './types/bank-accounts.js';
import { billCreditNotes } from './types/bill-credit-notes.js';
import { billPayments } from './types/bill-payments.js';
import { bills } from './types/bills.js';
import { accountTransactionsSource, bankTransactionsSource } from './types/cash-transactions.js';
import { company } from './types/company.js';
import { creditNotes } from './types/credit-notes.js';
import { directCosts, directIncomes, transfers } from './types/direct.js';
import { invoices } from './types/invoices.js';
import { items } from './types/items.js';
import { journalEntries } from './types/journal-entries.js';
import { customers, suppliers } from './types/parties.js';
import { payments } from './types/payments.js';
import { itemReceipts, purchaseOrders } from './types/purchase-orders.js';
import { chartOfAccounts, journalsSource, paymentMethodsSource, taxRatesSource, trackingCategoriesSource } from './types/reference.js';
import { balanceSheetSource, cashFlowStatementSource, profitAndLossSource } from './types/reports.js';
import { salesOrders } from './types/sales-orders.js';
import { accountingWrites } from './writes.js';

/**
 * The built-in accounting Sandbox (`mqjo`): a generated company whose every accounting data type is a pure,
 * lazily streamed function of the connection's settings (seed, size, asOf) and the sync epoch. See
 * docs/sandbox.md for what it generates and the consistency it guarantees.
 */
const sources: GeneratedSource[] = [
  accountTransactionsSource,
  balanceSheetSource,
  bankAccounts,
  bankTransactionsSource,
  billCreditNotes,
  billPayments,
  bills,
  cashFlowStatementSource,
  chartOfAccounts,
  company,
  creditNotes,
  customers,
  directCosts,
  directIncomes,
  invoices,
  itemReceipts,
  items,
  journalEntries,
  journalsSource,
  paymentMethodsSource,
  payments,
  profitAndLossSource,
  purchaseOrders,
  salesOrders,
  suppliers,
  taxRatesSource,
  trackingCategoriesSource,
  transfers,
];

export const accountingSandbox: SandboxConnector = platformConnector(ACCOUNTING_SANDBOX, {
  // Every record is a pure function of the settings, the epoch and the writes kept for it (docs/sandbox.md).
  repeatableReads: true,
  authorization: SANDBOX_AUTHORIZATION,
  link: linkSandbox,
  sandbox: true,
  dataTypes: sandboxSources(sources),
  writes: accountingWrites,
});
