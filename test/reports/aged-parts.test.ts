import { describe, expect, it } from 'vitest';
import { agedFactsBuilder, type AgedFacts } from '../../src/reports/aged/aged-facts.js';
import { agedRows, outstandingAmounts } from '../../src/reports/aged/aged-grouping.js';
import { KEPT_FIELDS, keptTuple } from '../../src/records/record-fields.js';

/*
 * A large company's facts are collected on two threads (src/reports/aged/aged-reading-threads.ts): one reads the
 * payments, credit notes and counterparties, the other the documents, then takes in the first one's part
 * (`absorb`). Here, on generated books (payments on invoices and credit notes, credit notes applied, money on
 * account, drafts and voids, references to records that are not there, counterparties named only by their records,
 * differently, amounts with three places), the facts made that way, with the part passed through structuredClone as
 * a thread's message carries it, answer exactly what one builder reading everything answers: every row and figure,
 * every amount with its record, every name.
 */

type Data = Record<string, any>;

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function books(seed: number, places: number) {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const day = () => `2024-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 9)}T00:00:00`;
  const amount = () => Math.round(next() * 10 ** (3 + places)) / 10 ** places;
  const customers = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, customerName: `Customer ${i}` }));
  // Counterparties 12 to 15 have no record of their own: their names come from the records that name them.
  const parties = Array.from({ length: 16 }, (_, i) => `c${i}`);
  const ref = (id: string, by: string) => ({ id, companyName: `${id} as ${by}` });
  const documents: Data[] = Array.from({ length: 60 }, (_, i) => ({
    id: `inv${String(i).padStart(3, '0')}`,
    customerRef: ref(pick(parties), 'invoiced'),
    currency: pick(['GBP', 'GBP', 'EUR', undefined]),
    issueDate: day(),
    totalAmount: amount(),
    status: pick(['Submitted', 'PartiallyPaid', 'Paid', 'Draft', 'Void']),
    paymentAllocations: [] as Data[],
  }));
  const credits: Data[] = Array.from({ length: 12 }, (_, i) => {
    const applied = pick(documents);
    const allocation = { totalAmount: amount() / 4, allocatedOnDate: day() };
    // The Sandbox's way, most of the time: both records list the application.
    if (next() < 0.7) applied.paymentAllocations.push({ payment: { id: `cn${i}` }, allocation });
    return {
      id: `cn${i}`,
      customerRef: ref(pick(parties), 'credited'),
      currency: 'GBP',
      issueDate: day(),
      totalAmount: amount(),
      status: pick(['Submitted', 'PartiallyPaid', 'Draft']),
      paymentAllocations: next() < 0.8 ? [{ payment: { id: applied.id }, allocation }] : [],
    };
  });
  const payments: Data[] = Array.from({ length: 50 }, (_, i) => {
    const id = `p${String(i).padStart(3, '0')}`;
    const date = day();
    const lines = Array.from({ length: 1 + Math.floor(next() * 2) }, () => {
      const value = amount() / 2;
      const kind = next();
      if (kind < 0.6) {
        const target = next() < 0.9 ? pick(documents) : { id: 'inv-missing', paymentAllocations: [] as Data[] };
        // The invoice lists the payment too, mostly.
        if (next() < 0.6)
          target.paymentAllocations.push({ payment: { id, paidOnDate: date }, allocation: { totalAmount: value, allocatedOnDate: date } });
        return { amount: value, links: [{ type: 'Invoice', id: target.id, amount: -value }] };
      }
      if (kind < 0.75) return { amount: -value, links: [{ type: 'CreditNote', id: pick(credits).id, amount: value }] };
      return { amount: value, links: [{ type: pick(['PaymentOnAccount', 'Unlinked']), id: `poa${i}`, amount: -value }] };
    });
    return { id, customerRef: ref(pick(parties), 'paid'), currency: 'GBP', date, lines };
  });
  return { customers, documents, credits, payments };
}

const kept = (type: string, record: Data) => keptTuple(KEPT_FIELDS[type] ?? [], record);

/** One builder reading every record, in the order the calling thread reads them. */
function onOneThread(b: ReturnType<typeof books>): AgedFacts {
  const builder = agedFactsBuilder('debtors');
  b.customers.forEach((r) => builder.counterparty(kept('customers', r)));
  b.payments.forEach((r) => builder.payment(kept('payments', r)));
  b.documents.forEach((r) => builder.document(kept('invoices', r)));
  b.credits.forEach((r) => builder.credit(kept('creditNotes', r)));
  return builder.finish();
}

/**
 * Two builders, as the reading threads split the inputs; the part crosses as a message would. The threads' way: the
 * documents in id order and the part's documents sorted, matched by a merge; `shuffled` documents (or an unsorted
 * part) take the map instead.
 */
function onTwoThreads(b: ReturnType<typeof books>, way: { sorted?: boolean; shuffled?: boolean } = {}): AgedFacts {
  const first = agedFactsBuilder('debtors');
  b.customers.forEach((r) => first.counterparty(kept('customers', r)));
  b.payments.forEach((r) => first.payment(kept('payments', r)));
  b.credits.forEach((r) => first.credit(kept('creditNotes', r)));
  const second = agedFactsBuilder('debtors');
  const documents = [...b.documents].sort((x, y) => (x.id < y.id ? -1 : 1));
  if (way.shuffled) documents.push(documents.shift()!);
  documents.forEach((r) => second.document(kept('invoices', r)));
  second.absorb(structuredClone(first.part({ sorted: way.sorted ?? true })));
  return second.finish();
}

const byRecord = (facts: AgedFacts, date: string) =>
  outstandingAmounts(facts, date)
    .map((a) => JSON.stringify(a))
    .sort();

describe('facts collected on two threads and put together', () => {
  it.each([
    [1, 2],
    [7, 2],
    [42, 3],
  ])('equal one builder reading everything (seed %i, %i places)', (seed, places) => {
    const b = books(seed, places);
    const one = onOneThread(b);
    for (const two of [onTwoThreads(b), onTwoThreads(b, { sorted: false }), onTwoThreads(b, { shuffled: true })]) {
      for (const reportDate of ['2024-02-15', '2024-05-31', '2024-12-31']) {
        for (const [numberOfPeriods, periodLengthDays] of [
          [4, 30],
          [7, 3],
        ]) {
          const parameters = { reportDate, numberOfPeriods, periodLengthDays };
          expect(agedRows(two, parameters)).toEqual(agedRows(one, parameters));
        }
        expect(byRecord(two, reportDate)).toEqual(byRecord(one, reportDate));
      }
    }
    // Something is outstanding in each detail, and the unnamed counterparties are named by their records.
    const rows = agedRows(one, { reportDate: '2024-12-31', numberOfPeriods: 1, periodLengthDays: 30 });
    const amounts = outstandingAmounts(one, '2024-12-31');
    expect(new Set(amounts.map((a) => a.detail))).toEqual(new Set(['Invoices', 'CreditNotes', 'Payments']));
    const named = rows.filter((r) => Number(r.counterpartyId.slice(1)) >= 12).map((r) => r.counterpartyName);
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((name) => / as (paid|invoiced|credited)$/.test(name ?? ''))).toBe(true);
    expect(one.places).toBeGreaterThanOrEqual(places);
  });

  it('names a counterparty without a record of its own by its payment on account first, then its invoice, then its credit note', () => {
    const b = books(3, 2);
    // A counterparty nothing else names.
    const party = 'c99';
    const onAccount = { amount: 5, links: [{ type: 'PaymentOnAccount', id: 'x', amount: -5 }] };
    b.payments.push({
      id: 'p900',
      customerRef: { id: party, companyName: 'by payment' },
      currency: 'GBP',
      date: '2024-01-01',
      lines: [onAccount],
    });
    b.documents.unshift({
      id: 'inv!',
      customerRef: { id: party, companyName: 'by invoice' },
      currency: 'GBP',
      issueDate: '2024-01-01',
      totalAmount: 1,
      status: 'Submitted',
    });
    const nameIn = (facts: AgedFacts) => facts.parties.find((p) => p.id === party)?.name;
    expect(nameIn(onTwoThreads(b))).toBe('by payment');
    expect(nameIn(onOneThread(b))).toBe('by payment');
    b.payments.pop();
    const withoutPayment = { ...b, payments: b.payments.filter((p) => p.customerRef.id !== party) };
    expect(nameIn(onTwoThreads(withoutPayment))).toBe('by invoice');
    expect(nameIn(onOneThread(withoutPayment))).toBe('by invoice');
  });
});
