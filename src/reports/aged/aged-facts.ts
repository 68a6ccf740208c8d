import { plainDecimal, rescale, wholeCents } from '../../lib/decimal.js';
import { KEPT_AT, KEPT_FIELDS, keptTuple } from '../../records/record-fields.js';
import { GrowingArray } from '../../lib/growing-array.js';

/*
 * What an aged report needs from a company's records, read once per set of data-set versions and kept
 * (docs/lending/aged-reports.md, "What is outstanding"): each amount that can be outstanding (a document, a credit
 * note's credit, money on account) with its counterparty, currency and the day it is aged by, and every reduction of
 * it with the day it was made. None of this depends on the report date, so a report at any date, with any periods,
 * is one pass over these arrays: no record is read again.
 */

type Data = Record<string, any>;

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

/** Counterparties' order in a report: by name, case and accents aside. */
const BY_NAME = new Intl.Collator('en', { sensitivity: 'base' });

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
  /** Each amount's record id: `text` from the previous entry's end (0 for the first) to `ends[i]` (see recordIdOf). */
  recordIds: { text: string; ends: Int32Array };
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
type Collected = number | string;
const NO_AMOUNT = NaN;
function collect(value: unknown): Collected {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NO_AMOUNT;
  return wholeCents(value) ?? plainDecimal(value);
}
const negate = (amount: Collected): Collected =>
  typeof amount === 'number' ? (amount === 0 ? 0 : -amount) : amount.startsWith('-') ? amount.slice(1) : `-${amount}`;
const placesIn = (amount: Collected) =>
  typeof amount === 'number' ? 2 : amount.includes('.') ? amount.length - amount.indexOf('.') - 1 : 0;

/**
 * Where a counterparty's name is taken from, best first: its own record in the customers (suppliers) data set, then
 * the first payment, document or credit note that names it (each read in id order). Ranked rather than taken in
 * reading order, so the name is the same whichever thread read which records first.
 */
const NAMED_BY = { counterparty: 0, payment: 1, document: 2, credit: 3, none: 4 } as const;

/**
 * What one builder collected of some of a report's inputs (agedFactsBuilder's `part`), for another to take in
 * (`absorb`): the inputs can be read on two threads at once. Plain lists and typed arrays, as a thread's message
 * carries them; indexes are the part's own.
 */
export interface AgedPart {
  parties: { id: string; name?: string; rank: number }[];
  currencies: string[];
  amounts: {
    recordId: string[];
    detail: Uint8Array;
    day: Int32Array;
    party: Int32Array;
    currency: Int32Array;
    amount: Collected[];
    /** The slot whose record the amount is (−1: money on account, which nothing reduces). */
    slot: Int32Array;
  };
  /** The records reductions target (or are), by kind: their ids; the document slots in id order, when asked for. */
  slots: { id: string[]; kind: Uint8Array; documentOrder?: Int32Array };
  /** Reductions not dropped for a better source of the same maker, in the order they were made. */
  reductions: { maker: string[]; day: Int32Array; amount: Collected[]; source: Int32Array; slot: Int32Array };
}

/**
 * Collects the facts record by record, in any order (records are read in batches): `counterparty` for the
 * customers or suppliers data set, `document`, `credit` and `payment` for the side's three data types; `absorb`
 * takes in what another builder collected (its `part`), so that the data types can be read on two threads at once.
 */
export function agedFactsBuilder(side: AgedSide) {
  const names = SIDES[side];
  const parties: { id: string; name?: string; rank: number }[] = [];
  const partyIndex = new Map<string, number>();
  const currencies: string[] = [];
  const currencyIndex = new Map<string, number>();
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
   * else reads the documents (the documents' reading thread), since a part's references can be matched to them by a
   * merge of sorted ids (absorb). Their slots enter the map when anything first looks a document up.
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

  /** The counterparty's index; `name` as the record of rank `rank` (NAMED_BY) gives it. */
  const partyOf = (id: string, name: unknown, rank: number): number => {
    let index = partyIndex.get(id);
    if (index === undefined) {
      index = parties.length;
      partyIndex.set(id, index);
      parties.push({ id, rank: NAMED_BY.none });
    }
    const entry = parties[index];
    // The customers' (suppliers') own record names the counterparty (the last one read, should two); a reference's
    // name is only a fallback, the first of the best-ranked kind of record.
    if (typeof name === 'string' && (rank < entry.rank || rank === NAMED_BY.counterparty)) {
      entry.name = name;
      entry.rank = rank;
    }
    return index;
  };
  const currencyOf = (code: unknown): number => {
    const text = typeof code === 'string' && code !== '' ? code : NO_CURRENCY;
    let index = currencyIndex.get(text);
    if (index === undefined) {
      index = currencies.length;
      currencyIndex.set(text, index);
      currencies.push(text);
    }
    return index;
  };
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

  /** The document slots in id order. */
  const documentOrder = (): Int32Array => {
    const slots: number[] = [];
    for (let slot = 0; slot < slotId.length; slot++) if (slotKind.get(slot) === DOCUMENT) slots.push(slot);
    return Int32Array.from(slots.sort((a, b) => (slotId[a] < slotId[b] ? -1 : slotId[a] > slotId[b] ? 1 : 0)));
  };
  /**
   * For each slot of a part, this builder's slot of the same document where a merge of the part's documents (in id
   * order) with this builder's unmapped ones finds it; −1 for every other slot (and for all, when there is nothing to
   * merge, or the part's order is not strictly increasing after all: then the map finds them).
   */
  const matchedDocuments = (slots: AgedPart['slots']): { slotAt: Int32Array; merged: boolean } => {
    const slotAt = new Int32Array(slots.id.length).fill(-1);
    const order = slots.documentOrder;
    if (!order || unmapped.length === 0) return { slotAt, merged: false };
    let at = 0;
    let previous: string | undefined;
    for (const s of order) {
      const id = slots.id[s];
      if (previous !== undefined && !(id > previous)) return { slotAt: slotAt.fill(-1), merged: false };
      previous = id;
      while (at < unmapped.length && slotId[unmapped[at]] < id) at++;
      if (at < unmapped.length && slotId[unmapped[at]] === id) slotAt[s] = unmapped[at];
    }
    return { slotAt, merged: true };
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
    /**
     * What was collected so far, for another builder to `absorb` (see AgedPart); `sorted`: with the documents' slots
     * in id order, which a builder that read the documents matches to its own by a merge instead of a map.
     */
    part(options: { sorted?: boolean } = {}): AgedPart {
      const amountSlot = new Int32Array(recordId.length).fill(-1);
      for (let slot = 0; slot < slotTarget.length; slot++) if (slotTarget.get(slot) >= 0) amountSlot[slotTarget.get(slot)] = slot;
      const kept: number[] = [];
      for (let r = 0; r < maker.length; r++) if (source.get(r) !== DROPPED) kept.push(r);
      // Almost always none was dropped: the lists go as they are.
      const all = kept.length === maker.length;
      return {
        parties: parties.map(({ id, name, rank }) => (name === undefined ? { id, rank } : { id, name, rank })),
        currencies,
        amounts: {
          recordId,
          detail: detail.toArray(),
          day: day.toArray(),
          party: party.toArray(),
          currency: currency.toArray(),
          amount,
          slot: amountSlot,
        },
        slots: { id: slotId, kind: slotKind.toArray(), ...(options.sorted ? { documentOrder: documentOrder() } : {}) },
        reductions: all
          ? { maker, day: reductionDay.toArray(), amount: reductionAmount, source: source.toArray(), slot: reducedSlot.toArray() }
          : {
              maker: kept.map((r) => maker[r]),
              day: Int32Array.from(kept, (r) => reductionDay.get(r)),
              amount: kept.map((r) => reductionAmount[r]),
              source: Int32Array.from(kept, (r) => source.get(r)),
              slot: Int32Array.from(kept, (r) => reducedSlot.get(r)),
            },
      };
    },
    /** Takes in what another builder collected: the same facts as if this one had read those records itself. */
    absorb(part: AgedPart): void {
      const partyAt = part.parties.map(({ id, name, rank }) => partyOf(id, name, rank));
      const currencyAt = part.currencies.map(currencyOf);
      const { slotAt, merged } = matchedDocuments(part.slots);
      for (let s = 0; s < slotAt.length; s++) {
        if (slotAt[s] >= 0) continue;
        const kind = part.slots.kind[s];
        const id = part.slots.id[s];
        // A document of the part's that the merge found none of this builder's unmapped ones to be: its own slot,
        // mapped at once, the unmapped left as they are.
        if (kind === DOCUMENT && merged) {
          slotAt[s] = newSlot(DOCUMENT, id);
          slotOf[DOCUMENT].set(id, slotAt[s]);
        } else slotAt[s] = slotFor(kind, id);
      }
      const a = part.amounts;
      for (let i = 0; i < a.recordId.length; i++) {
        const index = addAmount(a.recordId[i], partyAt[a.party[i]], currencyAt[a.currency[i]], a.detail[i], a.day[i], a.amount[i]);
        if (a.slot[i] >= 0) slotTarget.set(slotAt[a.slot[i]], index);
      }
      const r = part.reductions;
      for (let k = 0; k < r.maker.length; k++) reduce(r.maker[k], slotAt[r.slot[k]], r.day[k], r.amount[k], r.source[k]);
    },
    /** The facts, every amount at one scale; reductions of records not in the report (left out, unknown) dropped. */
    finish(): AgedFacts {
      const recordEnds = () => {
        const ends = new Int32Array(recordId.length);
        for (let i = 0, end = 0; i < recordId.length; i++) ends[i] = end += recordId[i].length;
        return ends;
      };
      const count = recordId.length;
      // Each reduction's amount, signed as it changes the served amount: a document's reduction lowers what is owed;
      // a credit's used-up part lowers the (negative) credit.
      const owner: number[] = [];
      const reductionStart = new Int32Array(count + 1);
      for (let r = 0; r < maker.length; r++) {
        const index = source.get(r) === DROPPED ? -1 : slotTarget.get(reducedSlot.get(r));
        owner.push(index);
        if (index >= 0) reductionStart[index + 1]++;
      }
      for (let i = 0; i < count; i++) reductionStart[i + 1] += reductionStart[i];
      const fill = reductionStart.slice(0, count);
      const placed = reductionStart[count];
      const placedDay = new Int32Array(placed);
      const placedAmount: Collected[] = new Array(placed);
      for (let r = 0; r < maker.length; r++) {
        if (owner[r] < 0) continue;
        const place = fill[owner[r]]++;
        placedDay[place] = reductionDay.get(r);
        placedAmount[place] = slotKind.get(reducedSlot.get(r)) === DOCUMENT ? negate(reductionAmount[r]) : reductionAmount[r];
      }

      // One scale for all: two places unless some amount has more.
      let places = 0;
      let cents = true;
      for (const list of [amount, placedAmount])
        for (const value of list) {
          const p = placesIn(value);
          if (p > places) places = p;
          if (typeof value !== 'number') cents = false;
        }
      let exact: AgedFacts['exact'];
      let big: AgedFacts['big'];
      if (cents) {
        let magnitude = 0;
        for (const value of amount) magnitude += Math.abs(value as number);
        for (const value of placedAmount) magnitude += Math.abs(value as number);
        // Adding non-negative integers: exact up to 2^53, and never back below it once past.
        if (magnitude <= Number.MAX_SAFE_INTEGER)
          exact = { amount: Float64Array.from(amount as number[]), adjustment: Float64Array.from(placedAmount as number[]) };
      }
      if (!exact) {
        const scaled = (value: Collected) =>
          typeof value === 'number'
            ? BigInt(value) * 10n ** BigInt(places - 2)
            : rescale({ units: BigInt(value.replace('.', '')), places: placesIn(value) }, places);
        const bigAmount = amount.map(scaled);
        const bigAdjustment = placedAmount.map(scaled);
        let magnitude = 0n;
        for (const value of bigAmount) magnitude += value < 0n ? -value : value;
        for (const value of bigAdjustment) magnitude += value < 0n ? -value : value;
        // Served as units over 10^places: that power of ten is an exact double only up to 10^22.
        if (magnitude <= BigInt(Number.MAX_SAFE_INTEGER) && places <= 22)
          exact = { amount: Float64Array.from(bigAmount, Number), adjustment: Float64Array.from(bigAdjustment, Number) };
        else big = { amount: bigAmount, adjustment: bigAdjustment };
      }

      const partyOf = party.toArray();
      const currencyOf = currency.toArray();
      const cellOf = new Map<number, number>();
      const cells: { party: number; currency: number }[] = [];
      const cell = new Int32Array(count);
      for (let i = 0; i < count; i++) {
        const key = partyOf[i] * currencies.length + currencyOf[i];
        let row = cellOf.get(key);
        if (row === undefined) {
          cellOf.set(key, (row = cells.length));
          cells.push({ party: partyOf[i], currency: currencyOf[i] });
        }
        cell[i] = row;
      }
      const partyRank = new Int32Array(parties.length);
      parties
        .map((entry, index) => ({ entry, index }))
        .sort(
          (a, b) =>
            BY_NAME.compare(a.entry.name ?? '', b.entry.name ?? '') || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0),
        )
        .forEach(({ index }, rank) => (partyRank[index] = rank));
      return {
        side,
        places: cents && exact ? 2 : places,
        parties: parties.map(({ id, name }) => (name === undefined ? { id } : { id, name })),
        currencies,
        // One text rather than a million strings: what a thread hands over in one copy, and one object to keep.
        recordIds: { text: recordId.join(''), ends: recordEnds() },
        detail: detail.toArray(),
        day: day.toArray(),
        party: partyOf,
        currency: currencyOf,
        reductionStart,
        reductionDay: placedDay,
        ...(exact ? { exact } : { big }),
        cell,
        cells,
        partyRank,
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

/** The facts of records at hand, as platforms serve them (tests, small companies): kept, then collected. */
export function agedFacts(
  side: AgedSide,
  records: { counterparties?: Iterable<Data>; documents: Iterable<Data>; credits: Iterable<Data>; payments: Iterable<Data> },
): AgedFacts {
  const builder = agedFactsBuilder(side);
  const kept = (role: keyof (typeof AGED_INPUTS)[AgedSide], record: Data) => keptTuple(KEPT_FIELDS[AGED_INPUTS[side][role]] ?? [], record);
  for (const record of records.counterparties ?? []) builder.counterparty(kept('counterparties', record));
  for (const record of records.documents) builder.document(kept('documents', record));
  for (const record of records.credits) builder.credit(kept('credits', record));
  for (const record of records.payments) builder.payment(kept('payments', record));
  return builder.finish();
}

/** The record id of amount `index`. */
export function recordIdOf(facts: AgedFacts, index: number): string {
  const { text, ends } = facts.recordIds;
  return text.slice(index === 0 ? 0 : ends[index - 1], ends[index]);
}

/** A rough size of the facts in memory, for the cache that keeps them. */
export function agedFactsBytes(facts: AgedFacts): number {
  const reductions = facts.reductionDay.length;
  return (
    facts.recordIds.text.length * 2 +
    facts.day.length * (facts.big ? 100 : 40) +
    reductions * (facts.big ? 56 : 12) +
    facts.parties.length * 96
  );
}
