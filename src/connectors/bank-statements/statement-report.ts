import type { StatementReport } from '../connector.js';
import type { ParsedStatement } from './statement.js';

export function reconciliationWarning(statement: Omit<ParsedStatement, 'transactions'>): string | undefined {
  if (statement.reconciles !== false) return undefined;
  return `the ${statement.format} statement of account ${statement.account.identifier} for ${statement.from} to ${statement.to} does not reconcile: opening ${statement.opening?.amount} + its transactions is not closing ${statement.closing?.amount}`;
}

export function statementReport(statement: ParsedStatement): StatementReport {
  const warning = reconciliationWarning(statement);
  return {
    account: statement.account.identifier,
    iban: statement.account.iban ?? null,
    currency: statement.account.currency,
    reference: statement.reference ?? null,
    from: statement.from,
    to: statement.to,
    transactions: statement.transactions.length,
    openingBalance: statement.opening ? Number(statement.opening.amount) : null,
    closingBalance: statement.closing ? Number(statement.closing.amount) : null,
    // A statement with no opening balance (OFX) has nothing contradicting it.
    reconciles: statement.reconciles !== false,
    ...(warning ? { warning } : {}),
  };
}
