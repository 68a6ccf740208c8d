import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { balanceAmounts, replay } from './ledger.js';
import { BankingPlan, type AccountPlan } from './plan.js';
import { BankingAccountBalance } from '../../../codat-model/banking/schemas.js';

/** Daily closing balances cover the last 31 days; earlier months have their month-end closing balance. */
export const DAILY_WINDOW = 31;

/** The days an account has a closing balance for, ascending. */
function balanceDays(plan: BankingPlan, a: AccountPlan): number[] {
  const last = plan.cal.days - 1;
  if (a.createdEpoch > 0) return [last];
  const windowStart = Math.max(0, last - DAILY_WINDOW + 1);
  const days: number[] = [];
  for (let m = 0; m < plan.completedMonths; m++) {
    const end = plan.cal.monthEnd(m);
    if (end < windowStart) days.push(end);
  }
  for (let d = windowStart; d <= last; d++) days.push(d);
  return days;
}

/** The last complete period whose end comes before every balance that needs replaying (-1: none). */
function replayFrom(plan: BankingPlan): number {
  const last = plan.cal.days - 1;
  let earliest = Math.max(0, last - DAILY_WINDOW + 1);
  for (let m = 0; m < plan.completedMonths; m++) {
    const p = plan.periodOfMonth(m);
    const end = plan.cal.monthEnd(m);
    if (!(p >= 0 && plan.periodEnd(p) === end)) {
      earliest = Math.min(earliest, end);
      break;
    }
  }
  let from = -1;
  for (let p = 0; p < plan.periods; p++) if (plan.periodEnd(p) < earliest) from = p;
  return from;
}

/**
 * End-of-day balances per account (ids `<accountId>_<date>`, so accounts then dates ascend). Period-end
 * balances are the closed-form targets; the others come from one replay of the transactions after the
 * last period end before them, kept in a table of accounts × balance days.
 */
function* accountBalances(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new BankingPlan(ctx);
  const { cal } = plan;
  const from = replayFrom(plan);
  const firstReplayed = from < 0 ? 0 : plan.periodEnd(from) + 1;
  const wanted = new Int32Array(cal.days).fill(-1);
  const dayList: number[] = [];
  for (const d of balanceDays(plan, plan.accounts[0])) {
    if (d >= firstReplayed) {
      wanted[d] = dayList.length;
      dayList.push(d);
    }
  }
  const n = plan.accounts.length;
  const cents = new Float64Array(n * dayList.length);
  const touched = new Int32Array(n * dayList.length);
  replay(plan, from, (d, state) => {
    const slot = wanted[d];
    if (slot < 0) return;
    for (let a = 0; a < n; a++) {
      cents[a * dayList.length + slot] = state.cents[a];
      touched[a * dayList.length + slot] = state.touched[a];
    }
  });
  for (const a of plan.accounts) {
    for (const d of balanceDays(plan, a)) {
      let value: number;
      let changed: number;
      if (d < firstReplayed) {
        value = plan.target(a, plan.periodOfMonth(cal.monthOf(d)));
        changed = 0;
      } else {
        value = cents[a.index * dayList.length + wanted[d]];
        changed = touched[a.index * dayList.length + wanted[d]];
      }
      const created = a.createdEpoch === 0 ? cal.created(d, 86399) : cal.epochStamp(a.createdEpoch);
      const modified = cal.modified(created, changed > a.createdEpoch ? changed : 0);
      const id = `${a.id}_${cal.day(d)}`;
      yield {
        id,
        sourceModifiedDate: modified,
        data: { id, accountId: a.id, balance: balanceAmounts(a, value), date: cal.local(d), sourceModifiedDate: modified },
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
