import { addDecimals, compareDecimals } from '../../lib/decimal.js';
import type { ParsedStatement } from './statement.js';

/** opening + Σ transactions = closing, exactly; null when there is no opening or closing balance to check. */
export function reconciles(statement: Pick<ParsedStatement, 'opening' | 'closing' | 'transactions'>): boolean | null {
  if (!statement.opening || !statement.closing) return null;
  const amounts = statement.transactions.map((t) => t.amount);
  amounts.push(statement.opening.amount);
  return compareDecimals(addDecimals(amounts), statement.closing.amount) === 0;
}
