import type { Connector, DataTypeSource } from '../../connector.js';
import type { DataType } from '../../data-types.js';
import { BANKING_DATA_TYPES } from '../../data-types.js';
import { bankingAccountBalances } from './account-balances.js';
import { bankingAccounts } from './accounts.js';
import { bankingTransactionCategories } from './transaction-categories.js';
import { bankingTransactions } from './transactions.js';

/**
 * The built-in banking Sandbox (`bsbx`): a company's bank accounts in GBP, USD and EUR with three years of
 * transactions up to `asOf`, generated on demand from the connection's seed. See docs/sandbox-banking-commerce.md.
 */
export const bankingSandbox: Connector = {
  info: { key: 'bsbx', name: 'Banking Sandbox', sourceType: 'Banking', dataTypes: BANKING_DATA_TYPES, brandColour: '#0e8a6d' },
  dataTypes: new Map<DataType, DataTypeSource>(
    [bankingAccounts, bankingAccountBalances, bankingTransactions, bankingTransactionCategories].map((s) => [s.dataType, s]),
  ),
};
