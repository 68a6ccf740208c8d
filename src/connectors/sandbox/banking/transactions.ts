import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { categoryName } from './category-tree.js';
import { guid, u3 } from './kit/fast.js';
import { bankAccountId, KEY } from './keys.js';
import { bookAccountKind } from './account-kinds.js';
import { bankDay, bankSideOf, bookMoves, FATE, lineSeconds } from './books.js';
import { BankingTransaction } from '../../../codat-model/banking/schemas.js';

/** How the bank writes each kind of the books' movements (the books' `transactionType`): text, code, category. */
const KINDS: Record<string, { text: string; code: string; category: string; later: string }> = {
  Credit: { text: 'FASTER PAYMENT RECEIVED', code: 'Credit', category: 'income-sales', later: 'income-refunds' },
  Payment: { text: 'BACS PAYMENT', code: 'Payment', category: 'suppliers-services', later: 'suppliers-stock' },
  Pos: { text: 'CARD PAYMENT', code: 'Purchase', category: 'office-supplies', later: 'office-equipment' },
  DirectDebit: { text: 'DIRECT DEBIT', code: 'DirectDebit', category: 'suppliers-services', later: 'software-saas' },
  Fee: { text: 'BANK CHARGES', code: 'Fee', category: 'bank-fees-account', later: 'bank-fees' },
  SerChg: { text: 'INTEREST CHARGED', code: 'Interest', category: 'bank-fees', later: 'bank-fees-account' },
  Int: { text: 'INTEREST PAID', code: 'Interest', category: 'income-interest', later: 'income' },
  Dep: { text: 'PAYMENT RECEIVED', code: 'Credit', category: 'income', later: 'income-sales' },
  // The shop's card payouts (the books' DirectDep): the processor pays by Bacs.
  DirectDep: { text: 'BANK GIRO CREDIT', code: 'Credit', category: 'income-sales', later: 'income' },
  Xfer: { text: 'ONLINE', code: 'Transfer', category: 'transfers-internal', later: 'transfers' },
};
const OTHER = { text: 'TRANSACTION', code: 'Other', category: 'other-general', later: 'other' };
/** The share of lines the bank files under another category at each later sync (its categoriser learns). */
const RECATEGORISED = 0.02;

/** The latest epoch after `created`, up to `epoch`, at which the bank filed line `index` under another category (0: none). */
function recategorisedAt(seed: number, index: number, created: number, epoch: number): number {
  for (let e = epoch; e > created; e--) if (u3(seed ^ 0x0ca7, index, e) < RECATEGORISED) return e;
  return 0;
}

/** The bank's own charges, by draw. */
const CHARGES = ['ACCOUNT MAINTENANCE FEE', 'NON-STERLING TRANSACTION FEE', 'UNPAID ITEM CHARGE', 'SERVICE CHARGE'];

/**
 * The statements of the books' bank accounts (books.ts): each movement that reached the bank as a line of the same
 * amount, its description the bank's words for its kind followed by the books' own description, upper-cased; the
 * bank's charges after the line they follow. In the movements' order, which is id order.
 */
function* transactions(ctx: FetchContext): Generator<SourceRecord> {
  const side = bankSideOf(ctx.settings, ctx.epoch);
  const { cal } = side;
  const seed = side.ctx.seed;
  let i = 0;
  for (const m of bookMoves(side, ctx.epoch)) {
    const k = i++;
    if (side.fate[k] !== FATE.line) continue;
    const kind = KINDS[m.type] ?? OTHER;
    const accountId = bankAccountId(seed, m.bank);
    const currency = bookAccountKind(m.bank).currency;
    const created =
      m.created === 0 ? cal.created(Math.max(0, bankDay(side, m.day)), lineSeconds(seed, m.index)) : cal.epochStamp(m.created);
    const posted = cal.local(side.posted[k]);
    const line = guid(seed, KEY.transactions, m.index * 2);
    const changed = recategorisedAt(seed, m.index, m.created, ctx.epoch);
    const category = changed ? kind.later : kind.category;
    const modified = cal.modified(created, changed);
    yield {
      id: line,
      sourceModifiedDate: modified,
      data: {
        id: line,
        accountId,
        description: `${kind.text} ${m.description.toUpperCase()}`,
        amount: m.amount / 100,
        currency,
        postedDate: posted,
        // A card purchase is authorised the day it is made; the bank posts it up to three days later.
        authorizedDate: m.type === 'Pos' ? cal.local(Math.min(side.posted[k], Math.max(0, bankDay(side, m.day)))) : posted,
        code: kind.code,
        // Whom the books say was paid or paid them, where they name anyone.
        merchantName: m.party === '' ? null : m.party,
        transactionCategoryRef: { id: category, name: categoryName(category) },
        sourceModifiedDate: modified,
      },
    };
    if (side.charge[k] === 0) continue;
    const fee = guid(seed, KEY.transactions, m.index * 2 + 1);
    const feeCategory = m.type === 'Pos' ? 'bank-fees-card' : 'bank-fees-account';
    yield {
      id: fee,
      sourceModifiedDate: created,
      data: {
        id: fee,
        accountId,
        description: CHARGES[m.index % CHARGES.length],
        amount: side.charge[k] / 100,
        currency,
        postedDate: posted,
        authorizedDate: posted,
        code: 'Fee',
        merchantName: null,
        transactionCategoryRef: { id: feeCategory, name: categoryName(feeCategory) },
        sourceModifiedDate: created,
      },
    };
  }
}

export const bankingTransactions: GeneratedSource = {
  dataType: 'banking-transactions',
  typeName: 'Transaction',
  schema: BankingTransaction,
  fetch: transactions,
};
