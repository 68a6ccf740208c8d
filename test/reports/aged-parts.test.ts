import { describe, expect, it } from 'vitest';
import { agedFactsBuilder, type AgedFacts, type AgedPart, type AgedRole } from '../../src/reports/aged/aged-facts.js';
import { combineParts } from '../../src/reports/aged/aged-combine.js';
import { idStart, type IdList } from '../../src/reports/aged/id-lists.js';
import { expected, served } from '../helpers/aged-oracle.js';
import { AGED_DIGEST_FORMAT, decodeAgedPart, encodeAgedPart } from '../../src/reports/aged/aged-digest.js';
import { agedRows, outstandingAmounts } from '../../src/reports/aged/aged-grouping.js';
import { KEPT_FIELDS, keptTuple } from '../../src/records/record-fields.js';
import { random } from '../helpers/random.js';

/*
 * A report's facts are each input version's part (what a builder collects of that version alone, kept as the
 * version's digest: src/reports/aged/aged-digest.ts, or read from its tuples, on whichever thread) put together by a
 * merge (`combine`). Here, on generated books (payments on invoices and credit notes, credit notes applied, money on
 * account, drafts and voids, references to records that are not there, counterparties named only by their records,
 * differently, amounts with three places), the facts made that way, each part passed through its digest's bytes
 * (in pieces, as stored) or through structuredClone as a thread's message carries it, answer exactly what one builder reading everything answers: every row and figure,
 * every amount with its record, every name.
 */

type Data = Record<string, any>;

function books(seed: number, places: number) {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const day = () => `2024-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 9)}T00:00:00`;
  const amount = () => Math.round(next() * 10 ** (3 + places)) / 10 ** places;
  // A share of an amount, still of `places` places.
  const share = (by: number) => Math.round((amount() / by) * 10 ** places) / 10 ** places;
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
    const status = pick(['Submitted', 'PartiallyPaid', 'Draft']);
    const applied = pick(documents);
    const allocation = { totalAmount: share(4), allocatedOnDate: day() };
    // The Sandbox's way, most of the time: both records list the application (a draft is applied to nothing).
    if (status !== 'Draft' && next() < 0.7) applied.paymentAllocations.push({ payment: { id: `cn${i}` }, allocation });
    return {
      id: `cn${i}`,
      customerRef: ref(pick(parties), 'credited'),
      currency: 'GBP',
      issueDate: day(),
      totalAmount: amount(),
      status,
      paymentAllocations: status !== 'Draft' && next() < 0.8 ? [{ payment: { id: applied.id }, allocation }] : [],
    };
  });
  const payments: Data[] = Array.from({ length: 50 }, (_, i) => {
    const id = `p${String(i).padStart(3, '0')}`;
    const date = day();
    const lines = Array.from({ length: 1 + Math.floor(next() * 2) }, () => {
      const value = share(2);
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

/** Id `i` of a list. */
const idAt = (list: IdList, i: number) => list.text.slice(idStart(list, i), list.ends[i]);

const kept = (type: string, record: Data) => keptTuple(KEPT_FIELDS[type] ?? [], record);

/** One builder reading every record (one part, whose reductions that builder matched to records by id itself). */
function onOneThread(b: ReturnType<typeof books>): AgedFacts {
  const builder = agedFactsBuilder('debtors');
  b.customers.forEach((r) => builder.counterparty(kept('customers', r)));
  b.payments.forEach((r) => builder.payment(kept('payments', r)));
  b.documents.forEach((r) => builder.document(kept('invoices', r)));
  b.credits.forEach((r) => builder.credit(kept('creditNotes', r)));
  return combineParts('debtors', [builder.part()]);
}

const side = 'debtors';

/** A part of some records of one role, as a builder reading them alone collects it. */
function partOf(role: AgedRole, records: Data[]): AgedPart {
  const type = { counterparties: 'customers', documents: 'invoices', credits: 'creditNotes', payments: 'payments' }[role];
  const method = ({ counterparties: 'counterparty', documents: 'document', credits: 'credit', payments: 'payment' } as const)[role];
  const builder = agedFactsBuilder(side);
  records.forEach((r) => builder[method](kept(type, r)));
  return builder.part();
}

/** A part through its digest's bytes, cut in pieces of `piece` bytes as if stored in chunks. */
function throughDigest(part: AgedPart, role: AgedRole, piece: number): AgedPart {
  const bytes = encodeAgedPart(part, { side, role });
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += piece) pieces.push(bytes.slice(at, at + piece));
  const decoded = decodeAgedPart(pieces, { side, role });
  if (!decoded) throw new Error('the digest was not read back');
  return decoded;
}

/**
 * Each input's records as a version of its own, its part made apart and put together in reading order. `digest`: each
 * part through its digest's bytes (else as a thread's message); `split`: the documents as two versions (two connections);
 * `shuffled`: documents out of id order (their part then sorts its slots).
 */
function fromParts(b: ReturnType<typeof books>, way: { digest?: boolean; split?: boolean; shuffled?: boolean } = {}): AgedFacts {
  const documents = [...b.documents].sort((x, y) => (x.id < y.id ? -1 : 1));
  if (way.shuffled) documents.push(documents.shift()!);
  const inputs: [AgedRole, Data[]][] = [
    ['counterparties', b.customers],
    ['payments', b.payments],
    ...(way.split
      ? ([
          ['documents', documents.filter((_, i) => i % 2 === 0)],
          ['documents', documents.filter((_, i) => i % 2 === 1)],
        ] as [AgedRole, Data[]][])
      : ([['documents', documents]] as [AgedRole, Data[]][])),
    ['credits', b.credits],
  ];
  const parts = inputs.map(([role, records], i) => {
    const part = partOf(role, records);
    return way.digest ? throughDigest(part, role, 7 + i * 1000) : structuredClone(part);
  });
  return combineParts(side, parts);
}

/** The report's figures as the oracle (test/helpers/aged-oracle.ts) reads a served answer: cents per row and period. */
function figures(facts: AgedFacts, parameters: { reportDate: string; numberOfPeriods: number; periodLengthDays: number }) {
  const data = agedRows(facts, parameters).map((row) => ({
    customerId: row.counterpartyId,
    agedCurrencyOutstanding: row.currencies.map((c) => ({
      currency: c.currency,
      agedOutstandingAmounts: c.periods.map((period) => ({ amount: period.amount, details: period.details })),
    })),
  }));
  return served('agedDebtor', { data });
}

const byRecord = (facts: AgedFacts, date: string) =>
  outstandingAmounts(facts, date)
    .map((a) => JSON.stringify(a))
    .sort();

describe('facts of parts put together', () => {
  it.each([
    [1, 2],
    [7, 2],
    [23, 2],
    [42, 3],
  ])('equal one builder reading everything (seed %i, %i places)', (seed, places) => {
    const b = books(seed, places);
    const one = onOneThread(b);
    const ways = [{}, { digest: true }, { digest: true, split: true }, { shuffled: true }, { digest: true, shuffled: true, split: true }];
    for (const two of ways.map((way) => fromParts(b, way))) {
      for (const reportDate of ['2024-02-15', '2024-05-31', '2024-12-31']) {
        for (const [numberOfPeriods, periodLengthDays] of [
          [4, 30],
          [7, 3],
        ]) {
          const parameters = { reportDate, numberOfPeriods, periodLengthDays };
          expect(agedRows(two, parameters)).toEqual(agedRows(one, parameters));
          // And both equal the aging worked out without the service's code (test/helpers/aged-oracle.ts, in cents:
          // books of two places).
          if (places === 2) {
            const records = { customers: b.customers, invoices: b.documents, creditNotes: b.credits, payments: b.payments };
            expect(figures(two, parameters)).toEqual(expected(records, 'agedDebtor', reportDate, numberOfPeriods, periodLengthDays));
          }
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
    expect(nameIn(fromParts(b, { digest: true }))).toBe('by payment');
    expect(nameIn(onOneThread(b))).toBe('by payment');
    b.payments.pop();
    const withoutPayment = { ...b, payments: b.payments.filter((p) => p.customerRef.id !== party) };
    expect(nameIn(fromParts(withoutPayment, { digest: true }))).toBe('by invoice');
    expect(nameIn(onOneThread(withoutPayment))).toBe('by invoice');
  });

  it('reads a digest back only as the format, side and role it was made for', () => {
    const b = books(5, 2);
    const bytes = encodeAgedPart(partOf('payments', b.payments), { side, role: 'payments' });
    expect(decodeAgedPart([bytes], { side, role: 'payments' })).toBeDefined();
    expect(decodeAgedPart([bytes], { side, role: 'documents' })).toBeUndefined();
    expect(decodeAgedPart([bytes], { side: 'creditors', role: 'payments' })).toBeUndefined();
    // Another format: the header's number changed in place.
    const length = new DataView(bytes.buffer).getUint32(0, true);
    const header = Buffer.from(bytes.subarray(8, 8 + length)).toString('utf8');
    const other = header.replace(`"format":${AGED_DIGEST_FORMAT}`, `"format":${AGED_DIGEST_FORMAT + 1}`);
    expect(other).not.toBe(header);
    const changed = bytes.slice();
    changed.set(Buffer.from(other, 'utf8'), 8);
    expect(decodeAgedPart([changed], { side, role: 'payments' })).toBeUndefined();
    expect(decodeAgedPart([bytes.subarray(0, 4)], { side, role: 'payments' })).toBeUndefined();
  });

  it('keeps record ids and names of any characters, and amounts with more places, through a digest', () => {
    const b = books(9, 3);
    b.documents[0].id = 'inv-é-😀';
    b.documents[0].customerRef = { id: 'c0', companyName: 'Zoë 😀 Ltd' };
    b.documents[0].status = 'Submitted';
    const part = partOf('documents', b.documents);
    const back = throughDigest(part, 'documents', 5);
    expect(back.ownIds).toEqual(part.ownIds);
    expect(back.slots.ids).toEqual(part.slots.ids);
    expect(back.reductions.makers).toEqual(part.reductions.makers);
    expect(Array.from(back.amounts.slot, (slot) => (slot >= 0 ? idAt(back.slots.ids, slot) : ''))).toContain('inv-é-😀');
    expect(back.amounts.amount).toEqual(part.amounts.amount);
    expect(back.parties).toEqual(part.parties);
    expect(Array.from(back.slots.order)).toEqual(Array.from(part.slots.order));
  });

  it('refuses parts whose slots are out of order, or not each once', () => {
    const b = books(11, 2);
    const payments = partOf('payments', b.payments);
    expect(payments.slots.order.length).toBeGreaterThan(2);
    const reversed = structuredClone(payments);
    reversed.slots.order.reverse();
    expect(() => combineParts(side, [reversed])).toThrow(/out of order/);
    const twice = structuredClone(payments);
    twice.slots.order[1] = twice.slots.order[0];
    expect(() => combineParts(side, [twice])).toThrow(/out of order/);
  });

  it('tells a damaged digest from a digest, and reads it as none', () => {
    const b = books(13, 2);
    const of = { side, role: 'payments' } as const;
    const bytes = encodeAgedPart(partOf('payments', b.payments), of);
    expect(decodeAgedPart([bytes], of)).toBeDefined();
    expect(decodeAgedPart([bytes.subarray(0, bytes.length - 64)], of)).toBeUndefined();
    expect(decodeAgedPart([bytes.subarray(0, 12)], of)).toBeUndefined();
    // One value of a section changed in place: an index out of range, ids that end past their text, an amount that is
    // no amount, slots out of order.
    const length = new DataView(bytes.buffer).getUint32(0, true);
    const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + length)).toString('utf8'));
    const start = 8 + Math.ceil(length / 8) * 8;
    const damaged = (section: string, write: (view: DataView, at: number, size: number) => void) => {
      const copy = bytes.slice();
      const [, offset, size] = header.sections[section];
      write(new DataView(copy.buffer), start + offset, size);
      return decodeAgedPart([copy], of);
    };
    expect(damaged('amounts.party', (v, at) => v.setInt32(at, 1_000_000, true))).toBeUndefined();
    expect(damaged('reductions.slot', (v, at) => v.setInt32(at, -5, true))).toBeUndefined();
    expect(
      damaged('reductions.makers.ends', (v, at, size) => v.setInt32(at + size - 4, v.getInt32(at + size - 4, true) + 1, true)),
    ).toBeUndefined();
    expect(damaged('amounts.amount', (v, at) => v.setFloat64(at, NaN, true))).toBeUndefined();
    expect(damaged('amounts.amount', (v, at) => v.setFloat64(at, 0.5, true))).toBeUndefined();
    expect(damaged('slots.order', (v, at) => v.setInt32(at, v.getInt32(at + 4, true), true))).toBeUndefined();
    // The same bytes rewritten unchanged are read.
    expect(damaged('amounts.party', (v, at) => v.setInt32(at, v.getInt32(at, true), true))).toBeDefined();
  });
});
