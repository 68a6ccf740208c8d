import type { StatementReport } from '../connector.js';
import type { ParsedStatement } from './statement.js';

/**
 * What the uploader is told of a statement: that it does not reconcile, and what the reader had to assume (a CAMT
 * balance taken from its available code); undefined when there is nothing to say.
 */
export function statementWarning(statement: Omit<ParsedStatement, 'transactions'>): string | undefined {
  const name = `the ${statement.format} statement of account ${statement.account.identifier} for ${statement.from} to ${statement.to}`;
  const said = [
    ...(statement.reconciles === false
      ? [`${name} does not reconcile: opening ${statement.opening?.amount} + its transactions is not closing ${statement.closing?.amount}`]
      : []),
    ...(statement.notes ?? []).map((note) => `${name}: ${note}`),
  ];
  return said.length > 0 ? said.join('; ') : undefined;
}

export function statementReport(statement: ParsedStatement): StatementReport {
  const warning = statementWarning(statement);
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
