import { digitsOf, h3 } from './kit/fast.js';

export type Currency = 'GBP' | 'USD' | 'EUR';
/** current: operating account swept to a target balance; card: cleared by direct debit; savings: reserve. */
export type AccountRole = 'current' | 'card' | 'savings';

export interface AccountKind {
  role: AccountRole;
  currency: Currency;
  name: string;
  informalName: string | null;
  identifierType: 'Depository' | 'Credit' | 'Card' | 'Investment';
  subtype: string;
  /** Share of the day-to-day transactions the account carries (savings accounts carry none). */
  weight: number;
}

/**
 * A company's accounts in the order they are opened: the first five (every size) cover GBP, USD and EUR and
 * each role; larger companies have more. Savings accounts and cards follow a current account in the same
 * currency, which funds them.
 */
export const ACCOUNT_KINDS: readonly AccountKind[] = [
  {
    role: 'current',
    currency: 'GBP',
    name: 'Business Current Account',
    informalName: 'Main account',
    identifierType: 'Depository',
    subtype: 'checking',
    weight: 44,
  },
  {
    role: 'card',
    currency: 'GBP',
    name: 'Business Credit Card',
    informalName: 'Company card',
    identifierType: 'Credit',
    subtype: 'credit card',
    weight: 17,
  },
  {
    role: 'current',
    currency: 'USD',
    name: 'USD Business Checking',
    informalName: 'US operations',
    identifierType: 'Depository',
    subtype: 'checking',
    weight: 15,
  },
  {
    role: 'current',
    currency: 'EUR',
    name: 'EUR Business Account',
    informalName: 'Eurozone',
    identifierType: 'Depository',
    subtype: 'checking',
    weight: 11,
  },
  {
    role: 'savings',
    currency: 'GBP',
    name: 'Business Savings Account',
    informalName: 'Tax reserve',
    identifierType: 'Depository',
    subtype: 'savings',
    weight: 0,
  },
  {
    role: 'card',
    currency: 'USD',
    name: 'Corporate Card (USD)',
    informalName: null,
    identifierType: 'Credit',
    subtype: 'credit card',
    weight: 6,
  },
  {
    role: 'savings',
    currency: 'EUR',
    name: 'EUR Deposit Account',
    informalName: null,
    identifierType: 'Depository',
    subtype: 'savings',
    weight: 0,
  },
  {
    role: 'current',
    currency: 'GBP',
    name: 'Payroll Account',
    informalName: 'Payroll',
    identifierType: 'Depository',
    subtype: 'checking',
    weight: 5,
  },
  {
    role: 'savings',
    currency: 'USD',
    name: 'USD Money Market Account',
    informalName: null,
    identifierType: 'Investment',
    subtype: 'money market',
    weight: 0,
  },
  {
    role: 'card',
    currency: 'EUR',
    name: 'Travel Card (EUR)',
    informalName: 'Travel',
    identifierType: 'Card',
    subtype: 'prepaid',
    weight: 2,
  },
];

/**
 * The books' bank accounts (the accounting Sandbox's: GBP current, GBP savings, USD current, EUR current, GBP card,
 * then deposit accounts opened later) as kinds of account: one company's books and bank name the same accounts.
 */
const BOOK_KINDS = [0, 4, 2, 3, 1] as const;
const DEPOSIT_KIND = 4;

/** The kind of the books' bank account `b` (CORE_BANKS order, then deposit accounts). */
export function bookAccountKind(b: number): AccountKind {
  return ACCOUNT_KINDS[b < BOOK_KINDS.length ? BOOK_KINDS[b] : DEPOSIT_KIND];
}

/** The identity of the books' bank account `b`, the same in the accounting Sandbox and the Banking Sandbox. */
export function bookAccountIdentity(seed: number, b: number): AccountIdentity {
  return accountIdentity(seed, b < BOOK_KINDS.length ? BOOK_KINDS[b] : 1000 + b, bookAccountKind(b));
}

export function accountKind(index: number): AccountKind {
  return ACCOUNT_KINDS[index % ACCOUNT_KINDS.length];
}

interface Institution {
  id: string;
  name: string;
  bic: string;
  /** IBAN country and 4-letter bank code when the bank issues IBANs in this currency. */
  iban?: { country: 'GB' | 'DE' | 'NL' | 'IE'; bank: string };
  /** German Bankleitzahl (the BBAN's bank part) when `iban.country` is DE. */
  blz?: string;
  /** US routing number prefix (the ABA checksum digit is computed). */
  routing?: string;
}

const INSTITUTIONS: Record<Currency, readonly Institution[]> = {
  GBP: [
    { id: 'barclays', name: 'Barclays', bic: 'BARCGB22', iban: { country: 'GB', bank: 'BARC' } },
    { id: 'lloyds-bank', name: 'Lloyds Bank', bic: 'LOYDGB21', iban: { country: 'GB', bank: 'LOYD' } },
    { id: 'hsbc-uk', name: 'HSBC UK', bic: 'HBUKGB4B', iban: { country: 'GB', bank: 'HBUK' } },
    { id: 'natwest', name: 'NatWest', bic: 'NWBKGB2L', iban: { country: 'GB', bank: 'NWBK' } },
    { id: 'starling-bank', name: 'Starling Bank', bic: 'SRLGGB2L', iban: { country: 'GB', bank: 'SRLG' } },
  ],
  USD: [
    { id: 'chase', name: 'JPMorgan Chase Bank', bic: 'CHASUS33', routing: '02100002' },
    { id: 'bank-of-america', name: 'Bank of America', bic: 'BOFAUS3N', routing: '02600959' },
    { id: 'wells-fargo', name: 'Wells Fargo', bic: 'WFBIUS6S', routing: '12100024' },
    { id: 'silicon-valley-bank', name: 'Silicon Valley Bank', bic: 'SVBKUS6S', routing: '12114035' },
  ],
  EUR: [
    { id: 'deutsche-bank', name: 'Deutsche Bank', bic: 'DEUTDEFF', iban: { country: 'DE', bank: '' }, blz: '50070010' },
    { id: 'ing', name: 'ING Bank', bic: 'INGBNL2A', iban: { country: 'NL', bank: 'INGB' } },
    { id: 'bank-of-ireland', name: 'Bank of Ireland', bic: 'BOFIIE2D', iban: { country: 'IE', bank: 'BOFI' } },
  ],
};

export interface AccountIdentity {
  institution: { id: string; name: string };
  identifiers: {
    type: AccountKind['identifierType'];
    subtype: string;
    number: string | null;
    bankCode: string | null;
    iban: string | null;
    bic: string | null;
    maskedAccountNumber: string;
  };
}

/** ISO 13616 check digits: the rearranged IBAN, letters as numbers, taken mod 97. */
export function ibanOf(country: string, bban: string): string {
  const rearranged = `${bban}${country}00`;
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of code) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  const check = String(98 - remainder).padStart(2, '0');
  return `${country}${check}${bban}`;
}

/** ABA routing number: eight digits plus the weighted (3, 7, 1) checksum digit. */
function routingNumber(prefix: string): string {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = [...prefix].reduce((acc, d, i) => acc + Number(d) * weights[i], 0);
  return prefix + String((10 - (sum % 10)) % 10);
}

function grouped(iban: string): string {
  return iban.replace(/(.{4})/g, '$1 ').trim();
}

/**
 * Bank, account number, sort/routing code, IBAN and BIC of an account of `kind` (by default its index's): realistic
 * and checksum-valid, drawn from (seed, index).
 */
export function accountIdentity(seed: number, index: number, kind: AccountKind = accountKind(index)): AccountIdentity {
  const banks = INSTITUTIONS[kind.currency];
  const bank = banks[(h3(seed, 0xba4c, index) >>> 8) % banks.length];
  const key = h3(seed, 0xacc7, index);
  const institution = { id: bank.id, name: bank.name };
  if (kind.role === 'card') {
    const last4 = digitsOf(4, key);
    return {
      institution,
      identifiers: {
        type: kind.identifierType,
        subtype: kind.subtype,
        number: null,
        bankCode: null,
        iban: null,
        bic: bank.bic,
        maskedAccountNumber: `**** **** **** ${last4}`,
      },
    };
  }
  if (bank.routing) {
    const number = digitsOf(10, key);
    return {
      institution,
      identifiers: {
        type: kind.identifierType,
        subtype: kind.subtype,
        number,
        bankCode: routingNumber(bank.routing),
        iban: null,
        bic: bank.bic,
        maskedAccountNumber: `******${number.slice(-4)}`,
      },
    };
  }
  const iban = bank.iban!;
  let number: string;
  let bankCode: string;
  let bban: string;
  if (iban.country === 'GB' || iban.country === 'IE') {
    bankCode = digitsOf(6, key ^ 0x50c7);
    number = digitsOf(8, key);
    bban = `${iban.bank}${bankCode}${number}`;
  } else if (iban.country === 'DE') {
    bankCode = bank.blz!;
    number = digitsOf(10, key);
    bban = `${bankCode}${number}`;
  } else {
    bankCode = iban.bank;
    number = digitsOf(10, key);
    bban = `${iban.bank}${number}`;
  }
  const sortCode =
    iban.country === 'GB' || iban.country === 'IE' ? `${bankCode.slice(0, 2)}-${bankCode.slice(2, 4)}-${bankCode.slice(4, 6)}` : bankCode;
  return {
    institution,
    identifiers: {
      type: kind.identifierType,
      subtype: kind.subtype,
      number,
      bankCode: sortCode,
      iban: grouped(ibanOf(iban.country, bban)),
      bic: bank.bic,
      maskedAccountNumber: `****${number.slice(-4)}`,
    },
  };
}
