import { SANDBOX_AUTHORIZATION, linkSandbox } from '../authorization.js';
import { sandboxSources, type SandboxConnector } from '../generated-source.js';
import { platformConnector } from '../../platform-connector.js';
import { BANKING_SANDBOX } from './platform.js';
import { bankingAccountBalances } from './account-balances.js';
import { bankingAccounts } from './accounts.js';
import { bankingTransactionCategories } from './transaction-categories.js';
import { bankingTransactions } from './transactions.js';

/**
 * The built-in banking Sandbox (`bsbx`): a company's bank accounts in GBP, USD and EUR with three years of
 * transactions up to `asOf`, generated on demand from the connection's seed. See docs/sandbox-banking-commerce.md.
 */
export const bankingSandbox: SandboxConnector = platformConnector(BANKING_SANDBOX, {
  // Every record is a pure function of the settings, the epoch and the writes kept for it (docs/sandbox.md).
  repeatableReads: true,
  authorization: SANDBOX_AUTHORIZATION,
  link: linkSandbox,
  sandbox: true,
  dataTypes: sandboxSources([bankingAccounts, bankingAccountBalances, bankingTransactions, bankingTransactionCategories]),
});
