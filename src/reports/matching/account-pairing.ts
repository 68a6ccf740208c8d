/**
 * Which accounting bank account is which banking account (docs/lending/matching.md): by IBAN where both have one,
 * else by sort code and account number where both have them, else by account number and currency. A UK IBAN
 * carries its sort code and account number, so it pairs with an account known only by those. The first rule both
 * sides can be held to decides: two different IBANs do not pair, whatever their numbers.
 */
export interface AccountIdentity {
  id: string;
  iban?: string | null;
  sortCode?: string | null;
  number?: string | null;
  currency?: string | null;
}

interface Keys {
  iban: string;
  sortCode: string;
  number: string;
  currency: string;
}

function keysOf(account: AccountIdentity): Keys {
  const iban = (account.iban ?? '').replace(/\s+/gu, '').toUpperCase();
  let sortCode = (account.sortCode ?? '').replace(/\D+/gu, '');
  let number = (account.number ?? '').replace(/[\s-]+/gu, '').toUpperCase();
  // GBkk BBBB SSSSSS AAAAAAAA: bank code, sort code, account number.
  if (/^GB\d{2}[A-Z]{4}\d{14}$/u.test(iban)) {
    sortCode ||= iban.slice(8, 14);
    number ||= iban.slice(14);
  }
  return { iban, sortCode, number, currency: (account.currency ?? '').toUpperCase() };
}

export function sameAccount(x: AccountIdentity, y: AccountIdentity): boolean {
  const a = keysOf(x);
  const b = keysOf(y);
  if (a.iban && b.iban) return a.iban === b.iban;
  if (a.sortCode && a.number && b.sortCode && b.number) return a.sortCode === b.sortCode && a.number === b.number;
  if (a.number && b.number && a.currency && b.currency) return a.number === b.number && a.currency === b.currency;
  return false;
}

/** Every (accounting account, banking account) pair that is the same account. */
export function pairAccounts(
  accounting: readonly AccountIdentity[],
  banking: readonly AccountIdentity[],
): [accountingAccount: string, bankingAccount: string][] {
  const pairs: [string, string][] = [];
  for (const a of accounting) for (const b of banking) if (sameAccount(a, b)) pairs.push([a.id, b.id]);
  return pairs;
}
