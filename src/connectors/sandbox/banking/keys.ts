import { keyOf } from '../random.js';
import { guid } from './kit/fast.js';

/** The Banking Sandbox's id keys, one per data type. */
export const KEY = {
  accounts: keyOf('banking-accounts'),
  balances: keyOf('banking-accountBalances'),
  transactions: keyOf('banking-transactions'),
  categories: keyOf('banking-transactionCategories'),
};

/** The banking id of the books' bank account `b`. */
export const bankAccountId = (seed: number, b: number) => guid(seed, KEY.accounts, b);
