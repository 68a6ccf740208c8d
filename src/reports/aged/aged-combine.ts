import { rescale } from '../../lib/decimal.js';
import { GrowingArray } from '../../lib/growing-array.js';
import {
  AGED_INPUTS,
  CREDIT,
  DOCUMENT,
  agedFactsBuilder,
  firstSeen,
  negate,
  partyRegister,
  placesIn,
  type AgedFacts,
  type AgedPart,
  type AgedRole,
  type AgedSide,
  type Collected,
} from './aged-facts.js';
import { KEPT_FIELDS, keptTuple } from '../../records/record-fields.js';
import { compareIds, idStart, sameId, type IdList } from './id-lists.js';

/*
 * A report's facts from the parts of its inputs (aged-facts.ts, AgedPart: what a builder collected of one input
 * version, read from the version's digest or its tuples). The parts' records are matched by id with a merge of their
 * slots in id order, and ids are compared and referred to as ranges of the parts' texts: a million-record company's
 * facts are put together without a map of ids or a string per id.
 */

/** Counterparties' order in a report: by name, case and accents aside. */
const BY_NAME = new Intl.Collator('en', { sensitivity: 'base' });

/** A reduction that a better source of the same maker replaced. */
const DROPPED = -1;

/**
 * The facts of the parts, put together in the order given (the order one builder would have read their records in,
 * which decides nothing but which of two equally ranked records names a counterparty): the same facts as one builder
 * reading all those records. Every amount at one scale; reductions of records not in the report (left out, unknown)
 * dropped.
 */
export function combineParts(side: AgedSide, parts: readonly AgedPart[]): AgedFacts {
  // Counterparties and currencies, by the same rules as a builder's (aged-facts.ts, partyRegister).
  const register = partyRegister();
  const parties = register.parties;
  const partyAt = parts.map((part) => part.parties.map(({ id, name, rank }) => register.of(id, name, rank)));
  const currencyIndex = firstSeen();
  const currencies = currencyIndex.list;
  const currencyAt = parts.map((part) => part.currencies.map(currencyIndex.of));

  const { slotAt, slotKind } = mergedSlots(parts);
  const slots = slotKind.length;

  // The amounts, part after part; each slot's record is the last amount of that record read.
  let count = 0;
  for (const part of parts) count += part.amounts.slot.length;
  const detail = new Uint8Array(count);
  const day = new Int32Array(count);
  const party = new Int32Array(count);
  const currency = new Int32Array(count);
  const amount: Collected[] = new Array<Collected>(count);
  const slotTarget = new Int32Array(slots).fill(-1);
  // Each amount's record id as a range of one of the parts' texts (only the texts some amount's id is in are kept).
  const texts: string[] = [];
  const textOf = new Map<IdList, number>();
  const idText = new Int32Array(count);
  const idStarts = new Int32Array(count);
  const idEnds = new Int32Array(count);
  const textIndex = (list: IdList) => {
    let index = textOf.get(list);
    if (index === undefined) textOf.set(list, (index = texts.push(list.text) - 1));
    return index;
  };
  let at = 0;
  parts.forEach((part, p) => {
    const a = part.amounts;
    // Only the texts an amount's id is in are kept with the facts (not a payments part's million referenced ids).
    let slotText = -1;
    let ownText = -1;
    for (let i = 0; i < a.slot.length; i++, at++) {
      detail[at] = a.detail[i];
      day[at] = a.day[i];
      party[at] = partyAt[p][a.party[i]];
      currency[at] = currencyAt[p][a.currency[i]];
      amount[at] = a.amount[i];
      const slot = a.slot[i];
      if (slot >= 0) {
        slotTarget[slotAt[p][slot]] = at;
        if (slotText < 0) slotText = textIndex(part.slots.ids);
        idText[at] = slotText;
        idStarts[at] = idStart(part.slots.ids, slot);
        idEnds[at] = part.slots.ids.ends[slot];
      } else {
        if (ownText < 0) ownText = textIndex(part.ownIds);
        const own = a.ownId[i];
        idText[at] = ownText;
        idStarts[at] = idStart(part.ownIds, own);
        idEnds[at] = part.ownIds.ends[own];
      }
    }
  });

  // The reductions, chained per slot reduced: of one maker's reductions of a record, only the best source's count
  // (aged-facts.ts, SOURCE), all of them; a part has already kept only its own best.
  const head = new Int32Array(slots).fill(-1);
  const next = new GrowingArray(Int32Array);
  const makerPart = new GrowingArray(Int32Array);
  const makerIndex = new GrowingArray(Int32Array);
  const source = new GrowingArray(Int32Array);
  const reducedSlot = new GrowingArray(Int32Array);
  const reductionDay = new GrowingArray(Int32Array);
  const reductionAmount: Collected[] = [];
  parts.forEach((part, p) => {
    const r = part.reductions;
    const makers = r.makers;
    for (let k = 0; k < r.slot.length; k++) {
      const slot = slotAt[p][r.slot[k]];
      const from = r.source[k];
      let last = -1;
      let worse = false;
      for (let c = head[slot]; c >= 0; last = c, c = next.get(c)) {
        if (source.get(c) === DROPPED || !sameId(makers, k, parts[makerPart.get(c)].reductions.makers, makerIndex.get(c))) continue;
        if (source.get(c) > from) worse = true;
        else if (source.get(c) < from) source.set(c, DROPPED);
      }
      if (worse) continue;
      const index = next.push(-1);
      makerPart.push(p);
      makerIndex.push(k);
      source.push(from);
      reducedSlot.push(slot);
      reductionDay.push(r.day[k]);
      reductionAmount.push(r.amount[k]);
      if (last < 0) head[slot] = index;
      else next.set(last, index);
    }
  });

  // Each reduction's amount, signed as it changes the served amount: a document's reduction lowers what is owed;
  // a credit's used-up part lowers the (negative) credit. Placed after its amount's others.
  const reductions = reductionAmount.length;
  const owner = new Int32Array(reductions);
  const reductionStart = new Int32Array(count + 1);
  for (let r = 0; r < reductions; r++) {
    const index = source.get(r) === DROPPED ? -1 : slotTarget[reducedSlot.get(r)];
    owner[r] = index;
    if (index >= 0) reductionStart[index + 1]++;
  }
  for (let i = 0; i < count; i++) reductionStart[i + 1] += reductionStart[i];
  const fill = reductionStart.slice(0, count);
  const placed = reductionStart[count];
  const placedDay = new Int32Array(placed);
  const placedAmount: Collected[] = new Array<Collected>(placed);
  for (let r = 0; r < reductions; r++) {
    if (owner[r] < 0) continue;
    const place = fill[owner[r]]++;
    placedDay[place] = reductionDay.get(r);
    placedAmount[place] = slotKind[reducedSlot.get(r)] === DOCUMENT ? negate(reductionAmount[r]) : reductionAmount[r];
  }

  const { places, exact, big } = oneScale(amount, placedAmount);

  const cellOf = new Map<number, number>();
  const cells: { party: number; currency: number }[] = [];
  const cell = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const key = party[i] * currencies.length + currency[i];
    let row = cellOf.get(key);
    if (row === undefined) {
      cellOf.set(key, (row = cells.length));
      cells.push({ party: party[i], currency: currency[i] });
    }
    cell[i] = row;
  }
  const partyRank = new Int32Array(parties.length);
  parties
    .map((entry, index) => ({ entry, index }))
    .sort(
      (a, b) => BY_NAME.compare(a.entry.name ?? '', b.entry.name ?? '') || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0),
    )
    .forEach(({ index }, rank) => (partyRank[index] = rank));
  return {
    side,
    places,
    parties: parties.map(({ id, name }) => (name === undefined ? { id } : { id, name })),
    currencies,
    recordIds: { texts, text: idText, starts: idStarts, ends: idEnds },
    detail,
    day,
    party,
    currency,
    reductionStart,
    reductionDay: placedDay,
    ...(exact ? { exact } : { big }),
    cell,
    cells,
    partyRank,
  };
}

/**
 * One slot per record across the parts, whichever parts name it (each part's slot `s` is slot `slotAt[p][s]`), found
 * by a merge of the parts' slots in (kind, id) order (`slots.order`). A part whose order is not strictly increasing,
 * or not every slot of it once, is refused: its records would get two slots each, or none.
 */
function mergedSlots(parts: readonly AgedPart[]): { slotAt: Int32Array[]; slotKind: Uint8Array } {
  const slotAt = parts.map((part) => new Int32Array(part.slots.kind.length).fill(-1));
  const kinds = new GrowingArray(Uint8Array);
  for (const kind of [DOCUMENT, CREDIT]) {
    // Each part's slots of this kind: a run of its order (documents' first).
    const runs = parts
      .map((part, p) => {
        const { order, kind: kindOf } = part.slots;
        let from = 0;
        while (from < order.length && kindOf[order[from]] < kind) from++;
        let end = from;
        while (end < order.length && kindOf[order[end]] === kind) end++;
        return { p, ids: part.slots.ids, order, at: from, end };
      })
      .filter((run) => run.at < run.end);
    while (runs.length > 0) {
      // The least id at the head of a run, then every run whose head is that id.
      let least = 0;
      for (let r = 1; r < runs.length; r++)
        if (compareIds(runs[r].ids, runs[r].order[runs[r].at], runs[least].ids, runs[least].order[runs[least].at]) < 0) least = r;
      const { ids: leastIds, order: leastOrder, at: leastAt } = runs[least];
      const id = leastOrder[leastAt];
      const slot = kinds.push(kind);
      for (let r = runs.length - 1; r >= 0; r--) {
        const run = runs[r];
        const s = run.order[run.at];
        if (r !== least && !sameId(run.ids, s, leastIds, id)) continue;
        slotAt[run.p][s] = slot;
        if (++run.at === run.end) runs.splice(r, 1);
        else if (compareIds(run.ids, run.order[run.at], run.ids, s) <= 0) throw new Error("an aged part's slots are out of order");
      }
    }
  }
  for (const at of slotAt) if (at.includes(-1)) throw new Error("an aged part's slots are out of order");
  return { slotAt, slotKind: kinds.toArray() };
}

/**
 * The amounts and adjustments at one scale: two places unless some amount has more; doubles when every sum of them is
 * exact in one, else bigints.
 */
function oneScale(amount: Collected[], placedAmount: Collected[]): { places: number; exact?: AgedFacts['exact']; big?: AgedFacts['big'] } {
  let places = 0;
  let cents = true;
  for (const list of [amount, placedAmount])
    for (const value of list) {
      const p = placesIn(value);
      if (p > places) places = p;
      if (typeof value !== 'number') cents = false;
    }
  if (cents) {
    let magnitude = 0;
    for (const value of amount) magnitude += Math.abs(value as number);
    for (const value of placedAmount) magnitude += Math.abs(value as number);
    // Adding non-negative integers: exact up to 2^53, and never back below it once past.
    if (magnitude <= Number.MAX_SAFE_INTEGER)
      return {
        places: 2,
        exact: { amount: Float64Array.from(amount as number[]), adjustment: Float64Array.from(placedAmount as number[]) },
      };
  }
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
    return { places, exact: { amount: Float64Array.from(bigAmount, Number), adjustment: Float64Array.from(bigAdjustment, Number) } };
  return { places, big: { amount: bigAmount, adjustment: bigAdjustment } };
}

type Data = Record<string, any>;

/** The facts of records at hand, as platforms serve them (tests, small companies): kept, collected, put together. */
export function agedFacts(
  side: AgedSide,
  records: { counterparties?: Iterable<Data>; documents: Iterable<Data>; credits: Iterable<Data>; payments: Iterable<Data> },
): AgedFacts {
  const builder = agedFactsBuilder(side);
  const kept = (role: AgedRole, record: Data) => keptTuple(KEPT_FIELDS[AGED_INPUTS[side][role]] ?? [], record);
  for (const record of records.counterparties ?? []) builder.counterparty(kept('counterparties', record));
  for (const record of records.documents) builder.document(kept('documents', record));
  for (const record of records.credits) builder.credit(kept('credits', record));
  for (const record of records.payments) builder.payment(kept('payments', record));
  return combineParts(side, [builder.part()]);
}
