import type { ParsedStatement } from './statement.js';

/** What the upload answers about one statement: account, period, count, balances, and whether it reconciles. */
export interface StatementReport {
  account: string;
  iban: string | null;
  currency: string;
  /** The statement's own number or id, where it has one. */
  reference: string | null;
  from: string;
  to: string;
  transactions: number;
  /** null where the file has none (OFX: only a ledger balance). */
  openingBalance: number | null;
  closingBalance: number | null;
  /**
   * opening + Σ transactions = closing, exactly. A statement with no opening balance to check (OFX) has nothing
   * contradicting it: true, and `openingBalance` null says it was not checked.
   */
  reconciles: boolean;
  /** Set when it does not reconcile: the warning the upload answer and the data carry. */
  warning?: string;
}

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
    reconciles: statement.reconciles !== false,
    ...(warning ? { warning } : {}),
  };
}
