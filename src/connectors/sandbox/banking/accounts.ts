import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { bookAccountIdentity, bookAccountKind } from './account-kinds.js';
import { companyName } from './kit/names.js';
import { u3 } from './kit/fast.js';
import { bankAccountId } from './keys.js';
import { bankSideOf, bookAccountLimit, bookAccountName, type BankSide } from './books.js';
import { BankingAccount } from '../../../codat-model/banking/schemas.js';

/** Served balance amounts of the books' account `b` holding `cents`: a card's available credit, else its balance. */
export function balanceAmounts(b: number, cents: number): { available: number; current: number; limit: number | null } {
  const current = cents / 100;
  const limit = bookAccountLimit(b);
  if (bookAccountKind(b).role === 'card') return { available: Math.round(limit * 100 + cents) / 100, current, limit };
  return { available: current, current, limit: bookAccountKind(b).role === 'savings' ? null : limit };
}

/** Day (bank day, relative to the span) account `b` was opened: the books' accounts years before, later ones at their epoch. */
export function openedDay(side: BankSide, b: number): number {
  return side.accountCreated[b] === 0 ? -Math.floor(30 + u3(side.ctx.seed, b, 0x0be7) * 2000) : side.cal.days - 1;
}

/**
 * The books' bank accounts as their bank shows them (books.ts): the same bank, number, sort code and IBAN, the
 * bank's own name for the kind of account, and the balance of the statement at the as-of day.
 */
function* accounts(ctx: FetchContext): Generator<SourceRecord> {
  const side = bankSideOf(ctx.settings, ctx.epoch);
  const { cal } = side;
  const seed = side.ctx.seed;
  const last = cal.days - 1;
  for (let b = 0; b < side.accounts; b++) {
    if (!side.accountLive[b]) continue;
    const id = bankAccountId(seed, b);
    const kind = bookAccountKind(b);
    const { institution, identifiers } = bookAccountIdentity(seed, b);
    const createdEpoch = side.accountCreated[b];
    const created =
      createdEpoch === 0 ? cal.created(openedDay(side, b), Math.floor(u3(seed, b, 0x71) * 86400)) : cal.epochStamp(createdEpoch);
    const changed = side.touched[b * cal.days + last];
    const modified = cal.modified(created, changed > createdEpoch ? changed : 0);
    yield {
      id,
      sourceModifiedDate: modified,
      data: {
        id,
        name: b < 5 ? kind.name : bookAccountName(b),
        informalName: b < 5 ? kind.informalName : null,
        holder: companyName(seed).legal,
        type: kind.role === 'card' ? 'Credit' : 'Debit',
        balance: balanceAmounts(b, side.balance[b * cal.days + last]),
        // A card's number is its masked number, as the books keep it.
        identifiers: kind.role === 'card' ? { ...identifiers, number: identifiers.maskedAccountNumber } : identifiers,
        currency: kind.currency,
        institution,
        sourceModifiedDate: modified,
      },
    };
  }
}

export const bankingAccounts: GeneratedSource = {
  dataType: 'banking-accounts',
  typeName: 'Account',
  schema: BankingAccount,
  fetch: accounts,
};
