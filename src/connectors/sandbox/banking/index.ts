import { SANDBOX_AUTHORIZATION, linkSandbox } from '../authorization.js';
import { sandboxSources, type SandboxConnector } from '../generated-source.js';
import { BANKING_DATA_TYPES } from '../../../codat-model/data-types.js';
import { bankingAccountBalances } from './account-balances.js';
import { bankingAccounts } from './accounts.js';
import { bankingTransactionCategories } from './transaction-categories.js';
import { bankingTransactions } from './transactions.js';

/**
 * The built-in banking Sandbox (`bsbx`): a company's bank accounts in GBP, USD and EUR with three years of
 * transactions up to `asOf`, generated on demand from the connection's seed. See docs/sandbox-banking-commerce.md.
 */
export const bankingSandbox: SandboxConnector = {
  authorization: SANDBOX_AUTHORIZATION,
  link: linkSandbox,
  info: { key: 'bsbx', name: 'Banking Sandbox', sourceType: 'Banking', dataTypes: BANKING_DATA_TYPES, brandColour: '#0e8a6d' },
  dataTypes: sandboxSources([bankingAccounts, bankingAccountBalances, bankingTransactions, bankingTransactionCategories]),
};
