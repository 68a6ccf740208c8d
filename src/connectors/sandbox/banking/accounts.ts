import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { accountIdentity } from './account-kinds.js';
import { companyName } from './kit/names.js';
import { u3 } from './kit/fast.js';
import { balanceAmounts, replay } from './ledger.js';
import { BankingPlan, type AccountPlan } from './plan.js';
import { BankingAccount } from '../../../codat-model/banking/schemas.js';

const INFORMAL_RENAMES = ['Operating account', 'Day-to-day', 'Spending', 'Reserve', 'Team card', 'Ops'];

/** Day (relative to the span) an account was opened: base accounts before the span, by up to six years. */
export function openedDay(plan: BankingPlan, a: AccountPlan): number {
  return a.createdEpoch === 0 ? -Math.floor(30 + u3(plan.seed, a.index, 0x0be7) * 2000) : plan.cal.days - 1;
}

export function accountRecord(plan: BankingPlan, a: AccountPlan, cents: number, touched: number): SourceRecord {
  const changed = Math.max(plan.accountMoves.changedAt(a.index, a.createdEpoch), touched > a.createdEpoch ? touched : 0);
  const renamed = plan.accountMoves.changedAt(a.index, a.createdEpoch);
  const { institution, identifiers } = accountIdentity(plan.seed, a.index);
  const created =
    a.createdEpoch === 0
      ? plan.cal.created(openedDay(plan, a), Math.floor(u3(plan.seed, a.index, 0x71) * 86400))
      : plan.cal.epochStamp(a.createdEpoch);
  const modified = plan.cal.modified(created, changed);
  return {
    id: a.id,
    sourceModifiedDate: modified,
    data: {
      id: a.id,
      name: a.name,
      informalName: renamed ? INFORMAL_RENAMES[(renamed + a.index) % INFORMAL_RENAMES.length] : a.kind.informalName,
      holder: companyName(plan.seed).legal,
      type: a.kind.role === 'card' ? 'Credit' : 'Debit',
      balance: balanceAmounts(a, cents),
      identifiers,
      currency: a.kind.currency,
      institution,
      sourceModifiedDate: modified,
    },
  };
}

/**
 * Accounts with their balance as of the latest epoch. Balances close each period at a closed-form target,
 * so only the transactions since the last period end are replayed (a month at most for large companies).
 */
function* accounts(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new BankingPlan(ctx);
  const state = replay(plan, plan.periods - 1, () => {});
  for (const a of plan.accounts) yield accountRecord(plan, a, state.cents[a.index], state.touched[a.index]);
}

export const bankingAccounts: GeneratedSource = {
  dataType: 'banking-accounts',
  typeName: 'Account',
  schema: BankingAccount,
  fetch: accounts,
};
