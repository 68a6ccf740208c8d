import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { bankAccountId } from './keys.js';
import { balanceAmounts } from './accounts.js';
import { bankSideOf, type BankSide } from './books.js';
import { BankingAccountBalance } from '../../../codat-model/banking/schemas.js';

/** Daily closing balances cover the last 31 days; earlier months have their month-end closing balance. */
export const DAILY_WINDOW = 31;

/** The days account `b` has a closing balance for, ascending: an account opened at a later epoch, its as-of day. */
function balanceDays(side: BankSide, b: number): number[] {
  const { cal } = side;
  const last = cal.days - 1;
  if (side.accountCreated[b] > 0) return [last];
  const windowStart = Math.max(0, last - DAILY_WINDOW + 1);
  const days: number[] = [];
  for (let m = 0; m < cal.months; m++) {
    const end = cal.monthEnd(m);
    if (end < windowStart) days.push(end);
  }
  for (let d = windowStart; d <= last; d++) days.push(d);
  return days;
}

/** End-of-day balances per account (ids `<accountId>_<date>`, so accounts then dates ascend): the statement's. */
function* accountBalances(ctx: FetchContext): Generator<SourceRecord> {
  const side = bankSideOf(ctx.settings, ctx.epoch);
  const { cal } = side;
  const seed = side.ctx.seed;
  for (let b = 0; b < side.accounts; b++) {
    if (!side.accountLive[b]) continue;
    const accountId = bankAccountId(seed, b);
    const createdEpoch = side.accountCreated[b];
    for (const d of balanceDays(side, b)) {
      const changed = side.touched[b * cal.days + d];
      const created = createdEpoch === 0 ? cal.created(d, 86399) : cal.epochStamp(createdEpoch);
      const modified = cal.modified(created, changed > createdEpoch ? changed : 0);
      const id = `${accountId}_${cal.day(d)}`;
      yield {
        id,
        sourceModifiedDate: modified,
        data: {
          id,
          accountId,
          balance: balanceAmounts(b, side.balance[b * cal.days + d]),
          date: cal.local(d),
          sourceModifiedDate: modified,
        },
      };
    }
  }
}

export const bankingAccountBalances: GeneratedSource = {
  dataType: 'banking-accountBalances',
  typeName: 'AccountBalance',
  schema: BankingAccountBalance,
  fetch: accountBalances,
};
