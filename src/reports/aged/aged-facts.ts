import { plainDecimal, wholeCents } from '../../lib/decimal.js';
import { KEPT_AT } from '../../records/record-fields.js';
import { GrowingArray } from '../../lib/growing-array.js';
import { idListOf, type IdList } from './id-lists.js';

/*
 * What an aged report needs from a company's records, read once per set of data-set versions and kept
 * (docs/lending/aged-reports.md, "What is outstanding"): each amount that can be outstanding (a document, a credit
 * note's credit, money on account) with its counterparty, currency and the day it is aged by, and every reduction of
 * it with the day it was made. None of this depends on the report date, so a report at any date, with any periods,
 * is one pass over these arrays: no record is read again.
 */

export type AgedSide = 'debtors' | 'creditors';

/** The details of each period, by what the amounts came from (Codat's names, in this order). */
export const AGED_DETAILS = {
  debtors: ['Invoices', 'CreditNotes', 'Payments'],
  creditors: ['Bills', 'BillCreditNotes', 'BillPayments'],
} as const satisfies Record<AgedSide, readonly string[]>;

/** Which of a report's three details an amount is (its index in AGED_DETAILS): documents, credit notes, money on account. */
export const DOCUMENT = 0;
export const CREDIT = 1;
export const ON_ACCOUNT = 2;

/** The payment link type of each side's documents. */
const SIDES = { debtors: { documentLink: 'Invoice' }, creditors: { documentLink: 'Bill' } } as const;

/**
 * Where a reduction was read, best first: a payment's link to the record; the record's own allocation; the other
 * record's allocation (a credit note listing the document it was applied to). Of one maker's reductions of a record,
 * only the best source's count: the same money is often shown on both records.
 */
const SOURCE = { link: 2, own: 1, counterpart: 0 } as const;
const DROPPED = -1;

/** Payment links that leave the money on the counterparty's account rather than settling a record. */
const ON_ACCOUNT_LINKS = new Set(['PaymentOnAccount', 'Unlinked']);

/** The currency served for a record that names none: ISO 4217's code for "no currency". */
export const NO_CURRENCY = 'XXX';

/** What is left out as at any date: a document not issued (Draft) or cancelled (Void). */
const LEFT_OUT = new Set(['Draft', 'Void']);

/**
 * The amounts of a report, one entry per index: `amount` as served when nothing has reduced it (a document's total
 * positive, a credit's total and money on account negative), and its reductions `reductionStart[i]` up to
 * `reductionStart[i + 1]`, each a signed change to that amount (`adjustment`) made on `reductionDay`. Amounts are
 * integers in units of 10^−`places`: doubles when every sum of them is exact in one (their absolute values add up to
 * at most 2^53 units, which is what almost every company's books come to), else bigints (`big`). Days are
 * `dayNumber`s.
 */
export interface AgedFacts {
  side: AgedSide;
  places: number;
  parties: { id: string; name?: string }[];
  currencies: string[];
  /**
   * Each amount's record id: `texts[text[i]]` from `starts[i]` to `ends[i]` (see recordIdOf), ranges of the few texts
   * the parts' ids came in rather than a million strings: what a thread hands over in a few copies, and few objects to keep.
   */
  recordIds: { texts: string[]; text: Int32Array; starts: Int32Array; ends: Int32Array };
  detail: Uint8Array;
  day: Int32Array;
  party: Int32Array;
  currency: Int32Array;
  reductionStart: Int32Array;
  reductionDay: Int32Array;
  /** The amounts and adjustments, when their sums are exact in doubles. */
  exact?: { amount: Float64Array; adjustment: Float64Array };
  /** Otherwise the same as bigints. */
  big?: { amount: bigint[]; adjustment: bigint[] };
  /** Each amount's row of the report: its (counterparty, currency) pair, an index into `cells`. */
  cell: Int32Array;
  cells: { party: number; currency: number }[];
  /** Each counterparty's place in the report: by name (case-insensitively), then id. */
  partyRank: Int32Array;
}

/**
 * An amount as collected: a whole number of cents (what almost every amount is, read without text or bigints), or
 * the exact decimal text of one with more places. NaN: no amount.
 */
export type Collected = number | string;
const NO_AMOUNT = NaN;
function collect(value: unknown): Collected {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NO_AMOUNT;
  return wholeCents(value) ?? plainDecimal(value);
}
export const negate = (amount: Collected): Collected =>
  typeof amount === 'number' ? (amount === 0 ? 0 : -amount) : amount.startsWith('-') ? amount.slice(1) : `-${amount}`;
export const placesIn = (amount: Collected) =>
  typeof amount === 'number' ? 2 : amount.includes('.') ? amount.length - amount.indexOf('.') - 1 : 0;

/**
 * Where a counterparty's name is taken from, best first: its own record in the customers (suppliers) data set, then
 * the first payment, document or credit note that names it (each read in id order). Ranked rather than taken in
 * reading order, so the name is the same whichever thread read which records first.
 */
export const NAMED_BY = { counterparty: 0, payment: 1, document: 2, credit: 3, none: 4 } as const;

/**
 * Counterparties by id, in the order first met, each named by its best-ranked record (NAMED_BY): its own record in the
 * customers (suppliers) data set, the last one read should two; else the first record of the best-ranked kind that
 * names it. One rule for a builder reading records and for parts put together (aged-combine.ts).
 */
export function partyRegister() {
  const parties: { id: string; name?: string; rank: number }[] = [];
  const index = new Map<string, number>();
  return {
    parties,
    /** The counterparty's index; `name` as the record of rank `rank` gives it. */
    of(id: string, name: unknown, rank: number): number {
      let at = index.get(id);
      if (at === undefined) {
        at = parties.push({ id, rank: NAMED_BY.none }) - 1;
        index.set(id, at);
      }
      const entry = parties[at];
      if (typeof name === 'string' && (rank < entry.rank || rank === NAMED_BY.counterparty)) {
        entry.name = name;
        entry.rank = rank;
      }
      return at;
    },
  };
}

/** Texts (currency codes) in the order first met, each with its index. */
export function firstSeen() {
  const list: string[] = [];
  const index = new Map<string, number>();
  return {
    list,
    of(text: string): number {
      let at = index.get(text);
      if (at === undefined) index.set(text, (at = list.push(text) - 1));
      return at;
    },
  };
}

/**
 * What one builder collected of some of a report's inputs (agedFactsBuilder's `part`): of one data-set version, as its
 * digest keeps it (aged-digest.ts), or read from its tuples on another thread. Parts are put together into a report's
 * facts by a merge of their slots (aged-combine.ts). Typed arrays and lists of ids as one text (id-lists.ts), as a
 * thread's message carries them and a digest stores them; indexes are the part's own.
 */
export interface AgedPart {
  parties: { id: string; name?: string; rank: number }[];
  currencies: string[];
  amounts: {
    detail: Uint8Array;
    day: Int32Array;
    party: Int32Array;
    currency: Int32Array;
    /** Read back from a digest, doubles when every amount is a whole number of cents. */
    amount: ArrayLike<Collected>;
    /** The slot whose record the amount is, and whose id is its record's (−1: money on account, which nothing reduces). */
    slot: Int32Array;
    /** For an amount without a slot, its record id's index in `ownIds` (−1 for the others). */
    ownId: Int32Array;
  };
  ownIds: IdList;
  /** The records reductions target (or are): their ids and kinds, and every slot by kind, then id (`order`). */
  slots: { ids: IdList; kind: Uint8Array; order: Int32Array };
  /** Reductions not dropped for a better source of the same maker, in the order they were made; `makers` their makers' ids. */
  reductions: { makers: IdList; day: Int32Array; amount: ArrayLike<Collected>; source: Int32Array; slot: Int32Array };
}

/**
 * Collects the facts record by record, in any order (records are read in batches): `counterparty` for the
 * customers or suppliers data set, `document`, `credit` and `payment` for the side's three data types; `part` is what
 * it collected, for aged-combine.ts to put together with other parts into a report's facts.
 */
export function agedFactsBuilder(side: AgedSide) {
  const names = SIDES[side];
  const register = partyRegister();
  const parties = register.parties;
  const currencyIndex = firstSeen();
  const currencies = currencyIndex.list;
  // One entry per amount, in parallel lists (a million records make no object each).
  const recordId: string[] = [];
  // Numbers in typed columns: a million entries the garbage collector need not walk.
  const detail = new GrowingArray(Uint8Array);
  const day = new GrowingArray(Int32Array);
  const party = new GrowingArray(Int32Array);
  const currency = new GrowingArray(Int32Array);
  const amount: Collected[] = [];
  /**
   * The records a reduction can target, documents' and credits' apart: each record id has one slot, which holds the
   * record's amount (its index, once the record is read; −1 before) and the head of its reductions' chain (−1: none).
   * Payments are read first, so a slot is often made by a reduction before its record arrives.
   */
  const slotOf = [new Map<string, number>(), new Map<string, number>()];
  const slotId: string[] = [];
  const slotTarget = new GrowingArray(Int32Array);
  const slotHead = new GrowingArray(Int32Array);
  const slotKind = new GrowingArray(Uint8Array);
  const newSlot = (kind: number, id: string): number => {
    slotId.push(id);
    slotHead.push(-1);
    slotKind.push(kind);
    return slotTarget.push(-1);
  };
  /**
   * Documents read before anything has looked a document up, in strictly increasing id order (a version's records
   * come in id order), are given slots without entering the id → slot map: a million insertions saved where nothing
   * else reads the documents (a part of the documents alone: parts are put together by a merge of sorted ids,
   * combine). Their slots enter the map when anything first looks a document up.
   */
  let unmapped: number[] = [];

  const mapUnmapped = () => {
    for (const slot of unmapped) slotOf[DOCUMENT].set(slotId[slot], slot);
    unmapped = [];
  };
  const slotFor = (kind: number, id: string): number => {
    if (kind === DOCUMENT && unmapped.length > 0) mapUnmapped();
    let slot = slotOf[kind].get(id);
    if (slot === undefined) {
      slot = newSlot(kind, id);
      slotOf[kind].set(id, slot);
    }
    return slot;
  };
  const documentSlot = (id: string): number => {
    const last = unmapped.length > 0 ? slotId[unmapped[unmapped.length - 1]] : undefined;
    if (slotOf[DOCUMENT].size > 0 || (last !== undefined && !(id > last))) return slotFor(DOCUMENT, id);
    const slot = newSlot(DOCUMENT, id);
    unmapped.push(slot);
    return slot;
  };
  // Reductions in parallel lists, chained per record reduced (from its slot's head, then `next`). Of the reductions
  // by one maker, only those of the best source count (SOURCE), all of them added up. A record is reduced a few
  // times, so its chain is walked rather than a key built.
  const next = new GrowingArray(Int32Array);
  const maker: string[] = [];
  const reductionDay = new GrowingArray(Int32Array);
  const reductionAmount: Collected[] = [];
  const source = new GrowingArray(Int32Array);
  const reducedSlot = new GrowingArray(Int32Array);

  const partyOf = register.of;
  const currencyOf = (code: unknown): number => currencyIndex.of(typeof code === 'string' && code !== '' ? code : NO_CURRENCY);
  /** One amount of a document, credit or payment: its record, counterparty and currency (indexes), day and value. */
  const addAmount = (id: string, partyAt: number, currencyAt: number, kind: number, on: number, value: Collected): number => {
    recordId.push(id);
    detail.push(kind);
    day.push(on);
    party.push(partyAt);
    currency.push(currencyAt);
    amount.push(value);
    return recordId.length - 1;
  };
  /** The same, with the counterparty as the record references it (id and name, of rank `rank`) and its currency code. */
  const add = (id: unknown, ref: unknown, refName: unknown, rank: number, code: unknown, kind: number, on: number, value: Collected) =>
    addAmount(String(id ?? ''), partyOf(String(ref ?? ''), refName, rank), currencyOf(code), kind, on, value);
  /**
   * `by` reduced the record of `slot` on day `on` by `value` (as it reduces), as `from` says. Several reductions by one
   * maker from one source add up (two lines of a payment, two part-allocations of a credit note); a better source
   * for the same maker replaces a worse one, which then counts for nothing.
   */
  const reduce = (by: string, slot: number, on: number, value: Collected, from: number) => {
    let last = -1;
    for (let at = slotHead.get(slot); at >= 0; last = at, at = next.get(at)) {
      if (maker[at] !== by || source.get(at) === DROPPED) continue;
      if (source.get(at) > from) return;
      if (source.get(at) < from) source.set(at, DROPPED);
    }
    const index = maker.length;
    maker.push(by);
    reductionDay.push(on);
    reductionAmount.push(value);
    source.push(from);
    reducedSlot.push(slot);
    next.push(-1);
    if (last < 0) slotHead.set(slot, index);
    else next.set(last, index);
  };
  /**
   * A record's own allocations reduce it. A credit's allocation to a document (its `payment.id` the document's id, as
   * Codat's Sandbox and the Xero mapping write it) reduces that document too, where the document does not list it.
   */
  const allocationsOf = (allocations: unknown, slot: number, kind: number, id: string) => {
    if (!Array.isArray(allocations)) return;
    const A = KEPT_AT.allocation;
    for (const allocation of allocations as unknown[][]) {
      const value = collect(allocation[A.amount]);
      const on = (allocation[A.day] ?? allocation[A.paidDay]) as number | null;
      const by = allocation[A.maker];
      // QuickBooks names only the payment: its amount is on the payment's own links.
      if (Number.isNaN(value) || on === null || typeof by !== 'string') continue;
      reduce(by, slot, on, value, SOURCE.own);
      if (kind === CREDIT) reduce(id, slotFor(DOCUMENT, by), on, value, SOURCE.counterpart);
    }
  };
  /** A document or credit note: issued, neither Draft nor Void, with a total. */
  const outstanding = (t: unknown[], kind: typeof DOCUMENT | typeof CREDIT) => {
    const D = KEPT_AT.document;
    const issued = t[D.day] as number | null;
    const total = collect(t[D.total]);
    if (issued === null || Number.isNaN(total) || LEFT_OUT.has(t[D.status] as string)) return;
    const id = String(t[D.id]);
    const value = kind === DOCUMENT ? total : negate(total);
    const slot = kind === DOCUMENT ? documentSlot(id) : slotFor(kind, id);
    const rank = kind === DOCUMENT ? NAMED_BY.document : NAMED_BY.credit;
    slotTarget.set(slot, add(id, t[D.ref], t[D.refName], rank, t[D.currency], kind, issued, value));
    allocationsOf(t[D.allocations], slot, kind, id);
  };

  /**
   * Every slot, documents' then credits', each kind's in id order (a version's documents are read in id order, so
   * theirs usually are already): what a merge of several parts' slots walks (combine).
   */
  const slotOrder = (): Int32Array => {
    const byKind: number[][] = [[], []];
    for (let slot = 0; slot < slotId.length; slot++) byKind[slotKind.get(slot)].push(slot);
    for (const slots of byKind) {
      let sorted = true;
      for (let i = 1; sorted && i < slots.length; i++) sorted = slotId[slots[i - 1]] < slotId[slots[i]];
      if (!sorted) slots.sort((a, b) => (slotId[a] < slotId[b] ? -1 : slotId[a] > slotId[b] ? 1 : 0));
    }
    const order = new Int32Array(slotId.length);
    order.set(byKind[DOCUMENT]);
    order.set(byKind[CREDIT], byKind[DOCUMENT].length);
    return order;
  };
  return {
    /** A kept customer (supplier): its own record names it. */
    counterparty(t: unknown[]): void {
      const C = KEPT_AT.counterparty;
      if (typeof t[C.id] === 'string') partyOf(t[C.id] as string, t[C.name], NAMED_BY.counterparty);
    },
    /** A kept invoice (bill). */
    document(t: unknown[]): void {
      outstanding(t, DOCUMENT);
    },
    /** A kept credit note (bill credit note). */
    credit(t: unknown[]): void {
      outstanding(t, CREDIT);
    },
    /** A kept payment (bill payment). */
    payment(t: unknown[]): void {
      const P = KEPT_AT.payment;
      const L = KEPT_AT.line;
      const K = KEPT_AT.link;
      const paid = t[P.day] as number | null;
      const lines = t[P.lines];
      if (paid === null || !Array.isArray(lines)) return;
      const by = String(t[P.id]);
      for (const line of lines as unknown[][]) {
        const links = Array.isArray(line[L.links]) ? (line[L.links] as unknown[][]) : [];
        const on = (line[L.day] as number | null) ?? paid;
        let settles = false;
        for (const link of links) {
          const type = link[K.type] as string;
          if (!ON_ACCOUNT_LINKS.has(type)) settles = true;
          const value = collect(link[K.amount]);
          const id = link[K.id];
          if (typeof id !== 'string' || Number.isNaN(value)) continue;
          // A link to a document pays it (its amount is negative: what the document is reduced by, negated);
          // a link to a credit note uses the credit up (a refund, or the credit applied).
          if (type === names.documentLink) reduce(by, slotFor(DOCUMENT, id), on, negate(value), SOURCE.link);
          else if (type === 'CreditNote') reduce(by, slotFor(CREDIT, id), on, value, SOURCE.link);
        }
        // Money on account: a line that settles nothing, or says it is on account, as at the payment's date.
        const value = collect(line[L.amount]);
        if (!settles && !Number.isNaN(value))
          add(by, t[P.ref], t[P.refName], NAMED_BY.payment, t[P.currency], ON_ACCOUNT, paid, negate(value));
      }
    },
    /** What was collected so far (see AgedPart). */
    part(): AgedPart {
      const count = recordId.length;
      const amountSlot = new Int32Array(count).fill(-1);
      for (let slot = 0; slot < slotTarget.length; slot++) if (slotTarget.get(slot) >= 0) amountSlot[slotTarget.get(slot)] = slot;
      // An amount whose record has a slot is that slot's record (its id kept once, with the slot); the others' ids apart.
      const ownId = new Int32Array(count).fill(-1);
      const own: string[] = [];
      for (let i = 0; i < count; i++) if (amountSlot[i] < 0) ownId[i] = own.push(recordId[i]) - 1;
      const kept: number[] = [];
      for (let r = 0; r < maker.length; r++) if (source.get(r) !== DROPPED) kept.push(r);
      // Almost always none was dropped: the lists go as they are.
      const all = kept.length === maker.length;
      return {
        parties: parties.map(({ id, name, rank }) => (name === undefined ? { id, rank } : { id, name, rank })),
        currencies,
        amounts: {
          detail: detail.toArray(),
          day: day.toArray(),
          party: party.toArray(),
          currency: currency.toArray(),
          amount,
          slot: amountSlot,
          ownId,
        },
        ownIds: idListOf(own),
        slots: { ids: idListOf(slotId), kind: slotKind.toArray(), order: slotOrder() },
        reductions: all
          ? {
              makers: idListOf(maker),
              day: reductionDay.toArray(),
              amount: reductionAmount,
              source: source.toArray(),
              slot: reducedSlot.toArray(),
            }
          : {
              makers: idListOf(kept.map((r) => maker[r])),
              day: Int32Array.from(kept, (r) => reductionDay.get(r)),
              amount: kept.map((r) => reductionAmount[r]),
              source: Int32Array.from(kept, (r) => source.get(r)),
              slot: Int32Array.from(kept, (r) => reducedSlot.get(r)),
            },
      };
    },
  };
}

/** Each side's four inputs, as data types (whose KEPT_FIELDS say what is read of them). */
export const AGED_INPUTS = {
  debtors: { counterparties: 'customers', documents: 'invoices', credits: 'creditNotes', payments: 'payments' },
  creditors: { counterparties: 'suppliers', documents: 'bills', credits: 'billCreditNotes', payments: 'billPayments' },
} as const;

/** A report's inputs, by what they are to it. */
export type AgedRole = keyof (typeof AGED_INPUTS)[AgedSide];

/** The record id of amount `index`. */
export function recordIdOf(facts: AgedFacts, index: number): string {
  const { texts, text, starts, ends } = facts.recordIds;
  return texts[text[index]].slice(starts[index], ends[index]);
}

/** A rough size of the facts in memory, for the cache that keeps them. */
export function agedFactsBytes(facts: AgedFacts): number {
  const reductions = facts.reductionDay.length;
  return (
    facts.recordIds.texts.reduce((sum, text) => sum + text.length * 2, 0) +
    facts.day.length * (facts.big ? 112 : 52) +
    reductions * (facts.big ? 56 : 12) +
    facts.parties.length * 96
  );
}
