import { dayNumber } from '../../lib/calendar-date.js';
import { scaledFigure } from '../../lib/decimal.js';

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

/** How each side names things: the counterparty's reference and name, and a payment link's type for its documents. */
const SIDES = {
  debtors: { ref: 'customerRef', refName: 'companyName', name: 'customerName', documentLink: 'Invoice' },
  creditors: { ref: 'supplierRef', refName: 'supplierName', name: 'supplierName', documentLink: 'Bill' },
} as const;

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
 * integers in units of 10^−`places`; days are `dayNumber`s.
 */
export interface AgedFacts {
  side: AgedSide;
  places: number;
  parties: { id: string; name?: string }[];
  currencies: string[];
  recordId: string[];
  detail: Uint8Array;
  day: Int32Array;
  party: Int32Array;
  currency: Int32Array;
  amount: bigint[];
  reductionStart: Int32Array;
  reductionDay: Int32Array;
  adjustment: bigint[];
}

const isoDay = (value: unknown): string | undefined =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;
const figure = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? scaledFigure(value) : undefined);

/** A reduction before it is matched to its amount: the record reduced, when, by how much (as it reduces). */
interface PendingReduction {
  target: string;
  day: number;
  units: bigint;
  places: number;
  /** Payment records' links come first; a document's own allocation counts only where no link said the same. */
  fromLink: boolean;
}

/**
 * Collects the facts record by record, in any order (records are read in batches): `counterparty` for the
 * customers or suppliers data set, `document`, `credit` and `payment` for the side's three data types.
 */
export function agedFactsBuilder(side: AgedSide) {
  const names = SIDES[side];
  const parties: { id: string; name?: string; named: boolean }[] = [];
  const partyIndex = new Map<string, number>();
  const currencies: string[] = [];
  const currencyIndex = new Map<string, number>();
  const recordId: string[] = [];
  const detail: number[] = [];
  const day: number[] = [];
  const party: number[] = [];
  const currency: number[] = [];
  const units: bigint[] = [];
  const placesOf: number[] = [];
  /** Amounts a reduction can target: `document <id>` or `credit <id>`, to their index. */
  const targets = new Map<string, number>();
  /** Reductions by (maker, record reduced): each is counted once, whichever records show it. */
  const reductions = new Map<string, PendingReduction>();

  const partyOf = (id: string, name: unknown, fromDataSet: boolean): number => {
    let index = partyIndex.get(id);
    if (index === undefined) {
      index = parties.length;
      partyIndex.set(id, index);
      parties.push({ id, named: false });
    }
    const entry = parties[index];
    // The customers' (suppliers') own record names the counterparty; a reference's name is only a fallback.
    if (typeof name === 'string' && (fromDataSet || (!entry.named && entry.name === undefined))) {
      entry.name = name;
      entry.named ||= fromDataSet;
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
  const add = (record: Data, kind: number, on: string, amount: { units: bigint; places: number }): number => {
    const ref = record[names.ref] as Data | undefined;
    recordId.push(String(record.id ?? ''));
    detail.push(kind);
    day.push(dayNumber(on));
    party.push(partyOf(String(ref?.id ?? ''), ref?.[names.refName], false));
    currency.push(currencyOf(record.currency));
    units.push(amount.units);
    placesOf.push(amount.places);
    return recordId.length - 1;
  };
  const reduce = (maker: string, target: string, on: string, amount: { units: bigint; places: number }, fromLink: boolean) => {
    const key = `${maker}\u0000${target}`;
    const known = reductions.get(key);
    if (known && (known.fromLink || !fromLink)) return;
    reductions.set(key, { target, day: dayNumber(on), units: amount.units, places: amount.places, fromLink });
  };
  const allocationsOf = (record: Data, target: string) => {
    for (const allocation of (record.paymentAllocations ?? []) as Data[]) {
      const amount = figure(allocation?.allocation?.totalAmount);
      const on = isoDay(allocation?.allocation?.allocatedOnDate) ?? isoDay(allocation?.payment?.paidOnDate);
      const maker = allocation?.payment?.id;
      // QuickBooks names only the payment: its amount is on the payment's own links.
      if (amount === undefined || on === undefined || typeof maker !== 'string') continue;
      reduce(maker, target, on, amount, false);
    }
  };
  /** A document or credit note: issued, neither Draft nor Void, with a total. */
  const outstanding = (record: Data, kind: typeof DOCUMENT | typeof CREDIT) => {
    const issued = isoDay(record.issueDate);
    const total = figure(record.totalAmount);
    if (!issued || total === undefined || LEFT_OUT.has(record.status)) return;
    const target = `${kind === DOCUMENT ? 'document' : 'credit'} ${record.id}`;
    targets.set(target, add(record, kind, issued, kind === DOCUMENT ? total : { units: -total.units, places: total.places }));
    allocationsOf(record, target);
  };

  return {
    counterparty(record: Data): void {
      if (typeof record.id === 'string') partyOf(record.id, record[names.name], true);
    },
    document(record: Data): void {
      outstanding(record, DOCUMENT);
    },
    credit(record: Data): void {
      outstanding(record, CREDIT);
    },
    payment(record: Data): void {
      const paid = isoDay(record.date);
      if (!paid) return;
      for (const line of (record.lines ?? []) as Data[]) {
        const links = (line?.links ?? []) as Data[];
        const on = isoDay(line?.allocatedOnDate) ?? paid;
        for (const link of links) {
          const amount = figure(link?.amount);
          if (typeof link?.id !== 'string' || amount === undefined) continue;
          // A link to a document pays it (its amount is negative: what the document is reduced by, negated);
          // a link to a credit note uses the credit up (a refund, or the credit applied).
          if (link.type === names.documentLink)
            reduce(String(record.id), `document ${link.id}`, on, { units: -amount.units, places: amount.places }, true);
          else if (link.type === 'CreditNote') reduce(String(record.id), `credit ${link.id}`, on, amount, true);
        }
        // Money on account: a line that settles nothing, or says it is on account, as at the payment's date.
        const amount = figure(line?.amount);
        if (amount !== undefined && links.every((link) => ON_ACCOUNT_LINKS.has(link?.type)))
          add(record, ON_ACCOUNT, paid, { units: -amount.units, places: amount.places });
      }
    },
    /** The facts, every amount at one scale; reductions of records not in the report (left out, unknown) dropped. */
    finish(): AgedFacts {
      const matched: { index: number; day: number; units: bigint; places: number }[] = [];
      for (const reduction of reductions.values()) {
        const index = targets.get(reduction.target);
        if (index === undefined) continue;
        // A document's reduction lowers what is owed; a credit's used-up part lowers the (negative) credit.
        const sign = detail[index] === DOCUMENT ? -1n : 1n;
        matched.push({ index, day: reduction.day, units: sign * reduction.units, places: reduction.places });
      }
      let places = 0;
      for (const p of placesOf) if (p > places) places = p;
      for (const r of matched) if (r.places > places) places = r.places;
      const at = (value: bigint, from: number) => (from === places ? value : value * 10n ** BigInt(places - from));

      const count = recordId.length;
      const reductionStart = new Int32Array(count + 1);
      for (const r of matched) reductionStart[r.index + 1]++;
      for (let i = 0; i < count; i++) reductionStart[i + 1] += reductionStart[i];
      const fill = reductionStart.slice(0, count);
      const reductionDay = new Int32Array(matched.length);
      const adjustment = new Array<bigint>(matched.length);
      for (const r of matched) {
        const slot = fill[r.index]++;
        reductionDay[slot] = r.day;
        adjustment[slot] = at(r.units, r.places);
      }
      return {
        side,
        places,
        parties: parties.map(({ id, name }) => (name === undefined ? { id } : { id, name })),
        currencies,
        recordId,
        detail: Uint8Array.from(detail),
        day: Int32Array.from(day),
        party: Int32Array.from(party),
        currency: Int32Array.from(currency),
        amount: units.map((u, i) => at(u, placesOf[i])),
        reductionStart,
        reductionDay,
        adjustment,
      };
    },
  };
}

/** The facts of records already at hand (tests, small companies): counterparties, documents, credits, payments. */
export function agedFacts(
  side: AgedSide,
  records: { counterparties?: Iterable<Data>; documents: Iterable<Data>; credits: Iterable<Data>; payments: Iterable<Data> },
): AgedFacts {
  const builder = agedFactsBuilder(side);
  for (const record of records.counterparties ?? []) builder.counterparty(record);
  for (const record of records.documents) builder.document(record);
  for (const record of records.credits) builder.credit(record);
  for (const record of records.payments) builder.payment(record);
  return builder.finish();
}

/** A rough size of the facts in memory, for the cache that keeps them. */
export function agedFactsBytes(facts: AgedFacts): number {
  return facts.recordId.length * 120 + facts.adjustment.length * 48 + facts.parties.length * 96;
}
