import { sha1 } from '../../lib/sha1.js';
import type { SourceRecord } from '../connector.js';
import type { AccountClass, LedgerAccount, LedgerPosting } from '../statements/monthly-statements.js';
import { quantity, quantityIn, type HledgerAccount, type HledgerTransaction } from './hledger-api.js';

/**
 * hledger's journal as Codat records. See docs/connectors/hledger.md for what maps and what does not.
 * hledger keeps no record ids and no modification times, so:
 * - an account's id is its full name (`assets:bank:checking`);
 * - a transaction's id is its code (`2025-01-05 (INV-1) …`) when the code is unique in the journal, otherwise a
 *   hash of its date, description and postings (editing such a transaction makes it a new record and the old
 *   one deleted); entries written through Ledgerport get a code, so they keep their id;
 * - `sourceModifiedDate` is the transaction's date (accounts and statements: the latest transaction's date).
 */

const TYPE_TAGS: Record<string, AccountClass | 'Cash'> = {
  a: 'Asset',
  asset: 'Asset',
  l: 'Liability',
  liability: 'Liability',
  e: 'Equity',
  equity: 'Equity',
  v: 'Equity',
  conversion: 'Equity',
  r: 'Income',
  revenue: 'Income',
  x: 'Expense',
  expense: 'Expense',
  c: 'Cash',
  cash: 'Cash',
};

/** hledger's own rule for accounts without a declared type: by the top-level name. */
function typeByName(name: string): AccountClass | undefined {
  const top = name.split(':')[0].toLowerCase();
  if (/^assets?$/.test(top)) return 'Asset';
  if (/^(debts?|liabilit(y|ies))$/.test(top)) return 'Liability';
  if (/^equity$/.test(top)) return 'Equity';
  if (/^(income|revenues?)$/.test(top)) return 'Income';
  if (/^expenses?$/.test(top)) return 'Expense';
  return undefined;
}

/**
 * Every account name with its type: declared (`account … ; type: A`, inherited by subaccounts), or, in a journal
 * that declares no types at all, by the top-level name. As in hledger's own reports (1.25): once a journal
 * declares types, an account with neither a declared type nor a declared ancestor is in no statement (its type
 * is Unknown here).
 */
export function accountTypes(
  names: readonly string[],
  transactions: readonly HledgerTransaction[],
): Map<string, { type: AccountClass | 'Unknown'; cash: boolean }> {
  const declared = new Map<string, AccountClass | 'Cash'>();
  for (const t of transactions) {
    for (const p of t.tpostings) {
      const tag = p.ptags?.find(([k]) => k.toLowerCase() === 'type');
      const type = tag && TYPE_TAGS[tag[1].trim().toLowerCase()];
      if (type && !declared.has(p.paccount)) declared.set(p.paccount, type);
    }
  }
  const out = new Map<string, { type: AccountClass | 'Unknown'; cash: boolean }>();
  const byName = declared.size === 0;
  for (const name of names) {
    let found: AccountClass | 'Cash' | undefined;
    for (let n = name; n && !found; n = n.includes(':') ? n.slice(0, n.lastIndexOf(':')) : '') found = declared.get(n);
    const cash =
      found === 'Cash' ||
      (found === undefined && byName && /(^|:)(bank|cash|checking|current|savings)(:|$)/i.test(name) && typeByName(name) === 'Asset');
    const type = found === 'Cash' ? 'Asset' : (found ?? (byName ? typeByName(name) : undefined) ?? 'Unknown');
    out.set(name, { type, cash });
  }
  // A parent account nothing is posted to (`assets` above declared `assets:bank`) takes the class its declared
  // subaccounts share: it is in no statement line either way, and the chart of accounts reads better.
  const posted = new Set(transactions.flatMap((t) => t.tpostings.map((p) => p.paccount)));
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

/** The commodity most postings use: the statements' currency. Others are left out of the statements. */
export function baseCommodity(transactions: readonly HledgerTransaction[]): string | undefined {
  const counts = new Map<string, number>();
  for (const t of transactions)
    for (const p of t.tpostings) for (const a of p.pamount) counts.set(a.acommodity, (counts.get(a.acommodity) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

/** A currency code Codat accepts (ISO 4217 shape), or undefined for `$`, `€`, `AAPL`…. */
function currencyCode(commodity: string): string | undefined {
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

export function accountRecords(list: readonly HledgerAccount[], transactions: readonly HledgerTransaction[]): SourceRecord[] {
  const names = list.map((a) => a.aname).filter((n) => n !== 'root');
  const types = accountTypes(names, transactions);
  const base = baseCommodity(transactions);
  const modified = instant(latestDate(transactions));
  return list
    .filter((a) => a.aname !== 'root')
    .map((a) => {
      const { type, cash } = types.get(a.aname)!;
      const own = a.aebalance.filter((x) => x.acommodity === base).reduce((sum, x) => sum + quantity(x), 0);
      const segments = a.aname.split(':');
      const data: Record<string, unknown> = {
        id: a.aname,
        name: segments[segments.length - 1],
        fullyQualifiedName: a.aname,
        fullyQualifiedCategory: segments.length > 1 ? `${type}.${segments.slice(0, -1).join('.')}` : type,
        currency: base && currencyCode(base),
        currentBalance: round(own),
        type,
        status: 'Active',
        isBankAccount: cash,
        sourceModifiedDate: modified,
      };
      if (data.currency === undefined) delete data.currency;
      return { id: a.aname, sourceModifiedDate: modified, data };
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
export function accountTransactionRecords(list: readonly HledgerAccount[], transactions: readonly HledgerTransaction[]): SourceRecord[] {
  const names = [...new Set([...list.map((a) => a.aname), ...transactions.flatMap((t) => t.tpostings.map((p) => p.paccount))])];
  const types = accountTypes(names, transactions);
  const base = baseCommodity(transactions);
  const currency = base && currencyCode(base);
  const ids = transactionIds(transactions);
  const out: SourceRecord[] = [];
  transactions.forEach((t, i) => {
    const amountOf = (p: HledgerTransaction['tpostings'][number]) =>
      p.pamount.reduce((sum, a) => sum + ((base && quantityIn(a, base)) || 0), 0);
    const cashAccounts = [...new Set(t.tpostings.filter((p) => types.get(p.paccount)?.cash).map((p) => p.paccount))];
    for (const account of cashAccounts) {
      const total = t.tpostings.filter((p) => p.paccount === account).reduce((sum, p) => sum + amountOf(p), 0);
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
          .map((p) => ({ description: p.paccount, recordRef: { id: ids[i], dataType: 'journalEntries' }, amount: round(-amountOf(p)) })),
        totalAmount: round(total),
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

/** The ledger the statements engine reads: accounts by class, postings in the base commodity only. */
export function ledgerOf(
  list: readonly HledgerAccount[],
  transactions: readonly HledgerTransaction[],
): { accounts: LedgerAccount[]; postings: LedgerPosting[] } {
  const names = [...new Set([...list.map((a) => a.aname), ...transactions.flatMap((t) => t.tpostings.map((p) => p.paccount))])].filter(
    (n) => n !== 'root',
  );
  const types = accountTypes(names, transactions);
  const base = baseCommodity(transactions);
  // Accounts of no known class stay out of the statements' lines; their postings still count towards the
  // balance sheet's "Net income to date", which keeps it balanced.
  const accounts: LedgerAccount[] = [];
  for (const name of names) {
    const { type, cash } = types.get(name)!;
    if (type !== 'Unknown') accounts.push({ id: name, name: name.split(':').pop()!, type, isCash: cash });
  }
  const ids = transactionIds(transactions);
  // In the base commodity, priced amounts at their cost; other amounts are left out.
  const postings: LedgerPosting[] = transactions.flatMap((t, i) =>
    t.tpostings.flatMap((p) =>
      p.pamount.flatMap((a) => {
        const amount = base === undefined ? undefined : quantityIn(a, base);
        return amount === undefined ? [] : [{ transactionId: ids[i], date: t.tdate, accountId: p.paccount, amount }];
      }),
    ),
  );
  return { accounts, postings };
}

const round = (n: number) => Math.round(n * 100) / 100;
