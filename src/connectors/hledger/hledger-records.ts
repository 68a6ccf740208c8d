import { sha1 } from '../../lib/sha1.js';
import type { SourceRecord } from '../connector.js';
import type { AccountClass, LedgerAccount, LedgerPosting } from '../statements/monthly-statements.js';
import { rescale, scaledNumber } from '../../lib/decimal.js';
import { costIn, quantity, type HledgerTransaction } from './hledger-api.js';

/**
 * hledger's journal as Codat records. See docs/connectors/hledger.md for what maps and what does not.
 * hledger keeps no record ids and no modification times, so:
 * - an account's id is its full name (`assets:bank:checking`);
 * - a transaction's id is its code (`2025-01-05 (INV-1) …`) when the code is unique in the journal, otherwise a
 *   hash of its date, description and postings (editing such a transaction makes it a new record and the old
 *   one deleted); entries written through Ledgerport get a code, so they keep their id;
 * - `sourceModifiedDate` is the transaction's date (accounts and statements: the latest transaction's date).
 */

type TypeCode = 'A' | 'L' | 'E' | 'R' | 'X' | 'C' | 'V';

const TYPE_TAGS: Record<string, TypeCode> = {
  a: 'A',
  asset: 'A',
  l: 'L',
  liability: 'L',
  e: 'E',
  equity: 'E',
  r: 'R',
  revenue: 'R',
  x: 'X',
  expense: 'X',
  c: 'C',
  cash: 'C',
  v: 'V',
  conversion: 'V',
};

/** hledger 1.25's name rules, each used for a type only while no account declares that type. */
const NAME_RULES: [TypeCode, AccountClass, RegExp][] = [
  ['A', 'Asset', /^assets?(:|$)/i],
  ['L', 'Liability', /^(debts?|liabilit(y|ies))(:|$)/i],
  ['E', 'Equity', /^equity(:|$)/i],
  ['R', 'Income', /^(income|revenue)s?(:|$)/i],
  ['X', 'Expense', /^expenses?(:|$)/i],
];
const CASH_NAME = /^assets?(:.+)?:(cash|bank|savings|checking|current)(:|$)/i;

const parentOf = (name: string) => (name.includes(':') ? name.slice(0, name.lastIndexOf(':')) : undefined);

/** A tag in a comment, as hledger reads one: a word right before a colon. */
const COMMENT_TAG = /(?:^|[\s,])([^\s:,]+):/g;

/**
 * The tags a posting carries from its account's declarations (and its parents'), nearest first: hledger-web lists a
 * posting's own comment tags (`; type: cash` as a note on one payment) before them, and those declare nothing.
 */
function accountTags(p: HledgerTransaction['tpostings'][number]): [string, string][] {
  const tags = p.ptags ?? [];
  const own = [...(p.pcomment ?? '').matchAll(COMMENT_TAG)].map((m) => m[1]);
  const ownFirst = own.length <= tags.length && own.every((name, i) => tags[i][0] === name);
  return ownFirst ? tags.slice(own.length) : tags;
}

/**
 * Every account name with its class, as hledger 1.25's `balancesheet`, `incomestatement` and `cashflow` select
 * accounts. For each type (asset, liability, equity, revenue, expense, cash): when some account declares it
 * (`account … ; type: A`), the accounts of that type are the declared ones and their subaccounts, less
 * subaccounts declared otherwise; when none does, the top-level name decides (`assets`, `liabilities`/`debts`,
 * `equity`, `income`/`revenues`, `expenses`; cash: an asset account with a `cash`, `bank`, `checking`, `current`
 * or `savings` part). Declared cash accounts are assets too; a conversion account (`V`) is in no statement.
 *
 * hledger-web tells an account's declared type through its postings' tags (a posting carries its account's tags
 * and its parents', nearest first), so a type declared only on accounts nothing is posted to, nor below, is not
 * seen: its name rule stays in use.
 */
export function accountTypes(
  names: readonly string[],
  transactions: readonly HledgerTransaction[],
): Map<string, { type: AccountClass | 'Unknown'; cash: boolean }> {
  const nearest = new Map<string, TypeCode>();
  const declared = new Set<TypeCode>();
  const posted = new Set<string>();
  for (const t of transactions) {
    for (const p of t.tpostings) {
      posted.add(p.paccount);
      const types = accountTags(p)
        .filter(([k]) => k.toLowerCase() === 'type')
        .map(([, v]) => TYPE_TAGS[v.trim().toLowerCase()]);
      for (const type of types) if (type) declared.add(type);
      if (types[0] && !nearest.has(p.paccount)) nearest.set(p.paccount, types[0]);
    }
  }
  // An account nothing is posted to has the declared type of its nearest posted parent, as far as can be seen.
  const typeOf = (name: string): TypeCode | undefined => {
    for (let n: string | undefined = name; n; n = parentOf(n)) if (posted.has(n)) return nearest.get(n);
    return undefined;
  };
  const out = new Map<string, { type: AccountClass | 'Unknown'; cash: boolean }>();
  for (const name of names) {
    const own = typeOf(name);
    const isCash = declared.has('C') ? own === 'C' : CASH_NAME.test(name);
    let type: AccountClass | 'Unknown' = 'Unknown';
    for (const [code, cls, rule] of NAME_RULES) {
      const matches = declared.has(code) ? own === code : rule.test(name);
      if (matches || (cls === 'Asset' && declared.has('C') && own === 'C')) {
        type = cls;
        break;
      }
    }
    out.set(name, { type, cash: isCash });
  }
  // A parent account nothing is posted to (`assets` above declared `assets:bank`) takes the class its declared
  // subaccounts share: it is in no statement line either way, and the chart of accounts reads better.
  for (const name of names) {
    if (out.get(name)?.type !== 'Unknown' || posted.has(name)) continue;
    const below = names
      .filter((n) => n.startsWith(`${name}:`))
      .map((n) => out.get(n)?.type)
      .filter((t) => t && t !== 'Unknown');
    if (below.length > 0 && below.every((t) => t === below[0])) out.set(name, { type: below[0] as AccountClass, cash: false });
  }
  return out;
}

/**
 * The statements' currency: the commodity most posting amounts use as written (a priced amount counts for its
 * own commodity); a tie goes to the commodity first in code-point order. Amounts at cost in another commodity are
 * left out of the statements.
 */
export function baseCommodity(transactions: readonly HledgerTransaction[]): string | undefined {
  const counts = new Map<string, number>();
  for (const t of transactions)
    for (const p of t.tpostings) for (const a of p.pamount) counts.set(a.acommodity, (counts.get(a.acommodity) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

/** A currency code Codat accepts (ISO 4217 shape), or undefined for `$`, `€`, `AAPL`…. */
export function currencyCode(commodity: string): string | undefined {
  const symbols: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY' };
  if (symbols[commodity]) return symbols[commodity];
  return /^[A-Z]{3}$/.test(commodity) ? commodity : undefined;
}

/** Each transaction's record id (see above). */
export function transactionIds(transactions: readonly HledgerTransaction[]): string[] {
  const codes = new Map<string, number>();
  for (const t of transactions) if (t.tcode) codes.set(t.tcode, (codes.get(t.tcode) ?? 0) + 1);
  const seen = new Map<string, number>();
  return transactions.map((t) => {
    if (t.tcode && codes.get(t.tcode) === 1) return t.tcode;
    const content = JSON.stringify([
      t.tdate,
      t.tdescription,
      t.tpostings.map((p) => [p.paccount, p.pamount.map((a) => [a.acommodity, quantity(a)])]),
    ]);
    const hash = `hl-${sha1(content, 'hex').slice(0, 16)}`;
    const n = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, n);
    return n === 1 ? hash : `${hash}-${n}`;
  });
}

const day = (date: string) => `${date}T00:00:00`;
const instant = (date: string) => `${date}T00:00:00Z`;
const latestDate = (transactions: readonly HledgerTransaction[]) =>
  transactions.reduce((max, t) => (t.tdate > max ? t.tdate : max), '1970-01-01');

/** Every account of the journal: declared or posted to (hledger-web's `/accountnames`), with their parents. */
function allNames(accountNames: readonly string[], transactions: readonly HledgerTransaction[]): string[] {
  const names = new Set<string>();
  const add = (name: string) => {
    for (let n: string | undefined = name; n && !names.has(n); n = parentOf(n)) names.add(n);
  };
  for (const n of accountNames) if (n !== 'root') add(n);
  for (const t of transactions) for (const p of t.tpostings) add(p.paccount);
  return [...names].sort();
}

export function accountRecords(accountNames: readonly string[], transactions: readonly HledgerTransaction[]): SourceRecord[] {
  const names = allNames(accountNames, transactions);
  const types = accountTypes(names, transactions);
  const base = baseCommodity(transactions);
  const modified = instant(latestDate(transactions));
  // Each account's own balance in the base commodity at cost, exact, as `hledger bal -B` sums it.
  const { postings, scale } = basePostings(transactions, base);
  const own = new Map<string, bigint>();
  for (const p of postings) own.set(p.accountId, (own.get(p.accountId) ?? 0n) + rescale(p.amount, scale));
  return names.map((name) => {
    const { type, cash } = types.get(name)!;
    const segments = name.split(':');
    const data: Record<string, unknown> = {
      id: name,
      name: segments[segments.length - 1],
      fullyQualifiedName: name,
      fullyQualifiedCategory: segments.length > 1 ? `${type}.${segments.slice(0, -1).join('.')}` : type,
      currency: base && currencyCode(base),
      currentBalance: scaledNumber(own.get(name) ?? 0n, scale),
      type,
      status: 'Active',
      isBankAccount: cash,
      sourceModifiedDate: modified,
    };
    if (data.currency === undefined) delete data.currency;
    return { id: name, sourceModifiedDate: modified, data };
  });
}

export function journalEntryRecords(transactions: readonly HledgerTransaction[]): SourceRecord[] {
  const ids = transactionIds(transactions);
  return transactions.map((t, i) => {
    const lines = t.tpostings.flatMap((p) =>
      p.pamount.map((a) => {
        const currency = currencyCode(a.acommodity);
        return {
          ...(p.pcomment?.trim() ? { description: p.pcomment.trim() } : {}),
          netAmount: quantity(a),
          ...(currency ? { currency } : {}),
          accountRef: { id: p.paccount, name: p.paccount.split(':').pop() },
        };
      }),
    );
    const data = {
      id: ids[i],
      description: t.tdescription,
      postedOn: day(t.tdate),
      journalRef: { id: 'general', name: 'General journal' },
      journalLines: lines,
      sourceModifiedDate: instant(t.tdate),
    };
    return { id: ids[i], sourceModifiedDate: instant(t.tdate), data };
  });
}

/**
 * Codat's account transactions are money moving in and out of bank accounts: one per transaction and cash
 * account it touches (`<entry id>:<account>`), in the base currency, its lines the transaction's other postings.
 * A cleared transaction (`*`) is `Reconciled`, others `Unreconciled`.
 */
export function accountTransactionRecords(accountNames: readonly string[], transactions: readonly HledgerTransaction[]): SourceRecord[] {
  const types = accountTypes(allNames(accountNames, transactions), transactions);
  const base = baseCommodity(transactions);
  const currency = base && currencyCode(base);
  const ids = transactionIds(transactions);
  const scale = scaleOf(transactions, base);
  const out: SourceRecord[] = [];
  transactions.forEach((t, i) => {
    const amountOf = (p: HledgerTransaction['tpostings'][number]) =>
      p.pamount.reduce((sum, a) => {
        const cost = base === undefined ? undefined : costIn(a, base);
        return cost ? sum + rescale(cost, scale) : sum;
      }, 0n);
    const cashAccounts = [...new Set(t.tpostings.filter((p) => types.get(p.paccount)?.cash).map((p) => p.paccount))];
    for (const account of cashAccounts) {
      const total = t.tpostings.filter((p) => p.paccount === account).reduce((sum, p) => sum + amountOf(p), 0n);
      const id = `${ids[i]}:${account}`;
      const data: Record<string, unknown> = {
        id,
        transactionId: ids[i],
        note: t.tdescription,
        bankAccountRef: { id: account, name: account.split(':').pop() },
        date: day(t.tdate),
        status: t.tstatus === 'Cleared' ? 'Reconciled' : 'Unreconciled',
        lines: t.tpostings
          .filter((p) => p.paccount !== account)
          .map((p) => ({
            description: p.paccount,
            recordRef: { id: ids[i], dataType: 'journalEntries' },
            amount: scaledNumber(-amountOf(p), scale),
          })),
        totalAmount: scaledNumber(total, scale),
        sourceModifiedDate: instant(t.tdate),
      };
      if (currency) data.currency = currency;
      out.push({ id, sourceModifiedDate: instant(t.tdate), data });
    }
  });
  return out;
}

/** hledger has one journal; Codat's `journals` is that one. */
export function journalRecords(transactions: readonly HledgerTransaction[]): SourceRecord[] {
  const modified = instant(latestDate(transactions));
  return [
    {
      id: 'general',
      sourceModifiedDate: modified,
      data: {
        id: 'general',
        journalCode: 'GJ',
        name: 'General journal',
        type: 'General',
        status: 'Active',
        hasChildren: false,
        sourceModifiedDate: modified,
      },
    },
  ];
}

export function companyRecord(url: string, transactions: readonly HledgerTransaction[]): SourceRecord {
  const file = transactions[0]?.tsourcepos?.[0]?.sourceName;
  const name = file
    ? file
        .split(/[\\/]/)
        .pop()!
        .replace(/\.(journal|hledger|j|ledger)$/i, '')
    : 'hledger journal';
  const base = baseCommodity(transactions);
  const currency = base && currencyCode(base);
  const modified = instant(latestDate(transactions));
  const data: Record<string, unknown> = {
    id: 'company',
    companyName: name,
    accountingPlatformRef: url,
    sourceUrls: { journal: url },
    sourceModifiedDate: modified,
  };
  if (currency) data.baseCurrency = currency;
  return { id: 'company', sourceModifiedDate: modified, data };
}

/** The most decimal places an amount in `base` at cost has: the scale its exact sums are kept at. */
function scaleOf(transactions: readonly HledgerTransaction[], base: string | undefined): number {
  let scale = 0;
  if (base === undefined) return scale;
  for (const t of transactions)
    for (const p of t.tpostings)
      for (const a of p.pamount) {
        const cost = costIn(a, base);
        if (cost && cost.places > scale) scale = cost.places;
      }
  return scale;
}

/**
 * Every posting amount whose cost is in the base commodity, exact, on the posting's own date when it has one (as
 * hledger's reports date it), with the most places one has (the scale sums are kept at); amounts at cost in another
 * commodity are left out. A posting's transaction is named by its place in the journal: only its grouping counts.
 */
function basePostings(transactions: readonly HledgerTransaction[], base: string | undefined): { postings: LedgerPosting[]; scale: number } {
  const postings: LedgerPosting[] = [];
  let scale = 0;
  if (base === undefined) return { postings, scale };
  transactions.forEach((t, i) => {
    for (const p of t.tpostings)
      for (const a of p.pamount) {
        const amount = costIn(a, base);
        if (!amount) continue;
        if (amount.places > scale) scale = amount.places;
        postings.push({ transactionId: String(i), date: p.pdate ?? t.tdate, accountId: p.paccount, amount });
      }
  });
  return { postings, scale };
}

/** The ledger the statements engine reads: accounts by class, postings at cost in the base commodity only. */
export function ledgerOf(
  accountNames: readonly string[],
  transactions: readonly HledgerTransaction[],
): { accounts: LedgerAccount[]; postings: LedgerPosting[] } {
  const names = allNames(accountNames, transactions);
  const types = accountTypes(names, transactions);
  const base = baseCommodity(transactions);
  // Accounts of no known class stay out of the statements' lines; their postings still count towards the
  // balance sheet's "Net income to date", which keeps it balanced.
  const accounts: LedgerAccount[] = [];
  for (const name of names) {
    const { type, cash } = types.get(name)!;
    if (type !== 'Unknown' || cash) accounts.push({ id: name, name: name.split(':').pop()!, type, isCash: cash });
  }
  return { accounts, postings: basePostings(transactions, base).postings };
}
