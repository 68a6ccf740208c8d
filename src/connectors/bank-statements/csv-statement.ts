import { addDecimals, compareDecimals, negateDecimal } from '../../lib/decimal.js';
import { ownAccount, type ParsedStatement, type StatementTransaction } from './statement.js';

/**
 * One account's rows. With a balance column, the running balances show the file's order: oldest first
 * (each balance = the one before + its amount) or newest first; the opening is the first row's balance less its
 * amount, the closing the last row's, and `reconciles` says whether the chain holds throughout. The rows are put
 * in order in place.
 */
export function statementOf(account: string, rows: StatementTransaction[], lines: number[]): ParsedStatement {
  const chainsForward = () =>
    rows.every(
      (r, i) =>
        i === 0 ||
        !r.balance ||
        !rows[i - 1].balance ||
        compareDecimals(addDecimals([rows[i - 1].balance as string, r.amount]), r.balance) === 0,
    );
  const chainsBackward = () =>
    rows.every(
      (r, i) =>
        i === rows.length - 1 ||
        !r.balance ||
        !rows[i + 1].balance ||
        compareDecimals(addDecimals([rows[i + 1].balance as string, r.amount]), r.balance) === 0,
    );
  const withBalance = rows.every((r) => r.balance !== undefined);
  let chained = false;
  if (withBalance && chainsForward()) chained = true;
  else if (withBalance && chainsBackward()) {
    rows.reverse();
    lines.reverse();
    chained = true;
  } else {
    const order = rows
      .map((_, i) => i)
      .sort((a, b) =>
        rows[a].bookingDate < rows[b].bookingDate ? -1 : rows[a].bookingDate > rows[b].bookingDate ? 1 : lines[a] - lines[b],
      );
    const sorted = order.map((i) => rows[i]);
    for (let i = 0; i < sorted.length; i++) rows[i] = sorted[i];
  }
  let from = rows[0].bookingDate;
  let to = rows[0].bookingDate;
  for (const r of rows) {
    if (r.bookingDate < from) from = r.bookingDate;
    if (r.bookingDate > to) to = r.bookingDate;
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    format: 'CSV',
    account: ownAccount({ identifier: account, ...(account !== 'CSV' ? { number: account } : {}), currency: first.currency }),
    from,
    to,
    ...(withBalance
      ? {
          opening: { amount: addDecimals([first.balance as string, negateDecimal(first.amount)]), date: first.bookingDate },
          closing: { amount: last.balance as string, date: last.bookingDate },
        }
      : {}),
    transactions: rows,
    reconciles: withBalance ? chained : null,
  };
}
