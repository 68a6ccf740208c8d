import { expect } from 'vitest';
import { http, type TestClient, type TestServer } from './test-server.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from './sandbox.js';

/*
 * Aged debtors and creditors worked out in the test, in whole cents, from the records a company's platform serves
 * (docs/lending/aged-reports.md's rules, written again without the service's code): the oracle the reports' tests
 * compare the served figures with, on the Sandbox and on the platforms' fakes.
 */

type Data = Record<string, any>;

export const SIDES = {
  agedDebtor: {
    who: 'customer',
    types: { counterparties: 'customers', documents: 'invoices', credits: 'creditNotes', payments: 'payments' },
    ref: 'customerRef',
    link: 'Invoice',
    details: ['Invoices', 'CreditNotes', 'Payments'],
  },
  agedCreditor: {
    who: 'supplier',
    types: { counterparties: 'suppliers', documents: 'bills', credits: 'billCreditNotes', payments: 'billPayments' },
    ref: 'supplierRef',
    link: 'Bill',
    details: ['Bills', 'BillCreditNotes', 'BillPayments'],
  },
} as const;
export type ReportName = keyof typeof SIDES;
export const ALL_TYPES = Object.values(SIDES).flatMap((side) => Object.values(side.types));

/** The served records of each data type of both reports. */
export type AgedRecords = Record<string, Data[]>;

const cents = (n: number) => Math.round(n * 100);
export const dayOf = (value: string) => value.slice(0, 10);
const daysFrom = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

/**
 * The report worked out from the served records, in cents. A document's (credit's) outstanding amount is its total
 * less what was taken off it by the report date. What one maker took off one record is read from the best place
 * that shows it, and everything shown there counts: first the payments' links, then the record's own allocations,
 * then a credit note's allocations naming the document. Money on account is a payment line settling nothing. Each
 * (counterparty, currency) gets numberOfPeriods cells of three details.
 */
export function expected(records: AgedRecords, name: ReportName, reportDate: string, periods: number, length: number) {
  const side = SIDES[name];
  // record → maker → where it was read (2 link, 1 own, 0 the credit's) and what it took off, each when.
  const taken = new Map<string, Map<string, { from: number; list: { day: string; cents: number }[] }>>();
  const take = (target: string, maker: string, from: number, day: string, amount: number) => {
    const byMaker = taken.get(target) ?? new Map();
    taken.set(target, byMaker);
    const known = byMaker.get(maker);
    if (!known || known.from < from) byMaker.set(maker, { from, list: [{ day, cents: amount }] });
    else if (known.from === from) known.list.push({ day, cents: amount });
  };
  const cells = new Map<string, { id: string; currency: string; sums: number[][] }>();
  const put = (record: Data, day: string, detail: number, amount: number) => {
    if (amount === 0 || day > reportDate) return;
    const id = record[side.ref]?.id ?? '';
    const currency = record.currency ?? 'XXX';
    const key = `${id}|${currency}`;
    if (!cells.has(key)) cells.set(key, { id, currency, sums: Array.from({ length: periods }, () => [0, 0, 0]) });
    const period = Math.min(Math.floor(daysFrom(day, reportDate) / length), periods - 1);
    cells.get(key)!.sums[period][detail] += amount;
  };
  for (const payment of records[side.types.payments]) {
    for (const line of payment.lines ?? []) {
      const day = dayOf(line.allocatedOnDate ?? payment.date);
      for (const link of line.links ?? []) {
        if (link.type === side.link) take(`d ${link.id}`, payment.id, 2, day, -cents(link.amount));
        if (link.type === 'CreditNote') take(`c ${link.id}`, payment.id, 2, day, cents(link.amount));
      }
      const settles = (line.links ?? []).some((l: Data) => l.type !== 'PaymentOnAccount' && l.type !== 'Unlinked');
      if (!settles) put(payment, dayOf(payment.date), 2, -cents(line.amount));
    }
  }
  const allocations = (record: Data) =>
    (record.paymentAllocations ?? [])
      .map((a: Data) => ({
        maker: a.payment?.id,
        day: a.allocation?.allocatedOnDate ?? a.payment?.paidOnDate,
        amount: a.allocation?.totalAmount,
      }))
      .filter((a: Data) => typeof a.amount === 'number' && a.day && a.maker);
  for (const doc of records[side.types.documents])
    for (const a of allocations(doc)) take(`d ${doc.id}`, a.maker, 1, dayOf(a.day), cents(a.amount));
  for (const credit of records[side.types.credits])
    for (const a of allocations(credit)) {
      take(`c ${credit.id}`, a.maker, 1, dayOf(a.day), cents(a.amount));
      take(`d ${a.maker}`, credit.id, 0, dayOf(a.day), cents(a.amount));
    }
  const left = (record: Data, kind: 'd' | 'c') => {
    let amount = cents(record.totalAmount);
    for (const { list } of taken.get(`${kind} ${record.id}`)?.values() ?? [])
      for (const t of list) if (t.day <= reportDate) amount -= t.cents;
    return amount;
  };
  for (const doc of records[side.types.documents])
    if (doc.status !== 'Draft' && doc.status !== 'Void') put(doc, dayOf(doc.issueDate), 0, left(doc, 'd'));
  for (const credit of records[side.types.credits])
    if (credit.status !== 'Draft' && credit.status !== 'Void') put(credit, dayOf(credit.issueDate), 1, -left(credit, 'c'));
  // As the report serves them: per counterparty and currency, each period's details and their sum, in cents.
  const out = new Map<string, number[][]>();
  for (const { id, currency, sums } of cells.values())
    if (sums.some((p) => p.some((v) => v !== 0)))
      out.set(
        `${id}|${currency}`,
        sums.map((p) => [...p, p[0] + p[1] + p[2]]),
      );
  return out;
}

export function served(name: ReportName, body: Data) {
  const side = SIDES[name];
  const out = new Map<string, number[][]>();
  for (const row of body.data)
    for (const currency of row.agedCurrencyOutstanding)
      out.set(
        `${row[`${side.who}Id`]}|${currency.currency}`,
        currency.agedOutstandingAmounts.map((p: Data) => {
          expect(p.details.map((d: Data) => d.name)).toEqual(side.details);
          return [...p.details.map((d: Data) => cents(d.amount)), cents(p.amount)];
        }),
      );
  return out;
}

/**
 * What the platform itself says is still owed and still to use, per counterparty and currency, in cents: the documents'
 * `amountDue` (QuickBooks' `Balance`, Xero's `AmountDue`) and the credits' `remainingCredit`, negative; Draft and Void
 * left out. An aged report as at a day after every record equals it in its first two details.
 */
export function platformOwn(records: AgedRecords, name: ReportName): Map<string, number[]> {
  const side = SIDES[name];
  const own = new Map<string, number[]>();
  const add = (record: Data, at: number, amount: number) => {
    if (record.status === 'Draft' || record.status === 'Void' || amount === 0) return;
    const key = `${record[side.ref]?.id}|${record.currency ?? 'XXX'}`;
    const cells = own.get(key) ?? [0, 0];
    cells[at] += cents(amount);
    own.set(key, cells);
  };
  for (const document of records[side.types.documents]) add(document, 0, document.amountDue ?? 0);
  for (const credit of records[side.types.credits]) add(credit, 1, -(credit.remainingCredit ?? 0));
  return new Map([...own].filter(([, cells]) => cells.some((c) => c !== 0)));
}

/**
 * A Sandbox company of the client's linked with every input of both reports synced, and the records the API serves
 * for it, by data type (every page): what the reports' tests compare the served figures with.
 */
export async function syncedSandbox(server: TestServer, client: TestClient): Promise<{ companyId: string; records: AgedRecords }> {
  const linked = await companyWithConnection(server, client);
  await fetchOnFirstLinkOnly(server, client, linked.companyId, ALL_TYPES);
  await authorize(server, client, linked);
  await waitForSyncs(server, client, linked.companyId);
  const records: AgedRecords = {};
  for (const type of ALL_TYPES) {
    const all: Data[] = [];
    for (let page = 1; ; page++) {
      const res = await http(server, 'GET', `/companies/${linked.companyId}/data/${type}?page=${page}&pageSize=5000`, {
        auth: client.auth,
      });
      expect(res.status, res.text).toBe(200);
      all.push(...res.body.results);
      if (all.length >= res.body.totalResults) break;
    }
    records[type] = all;
  }
  return { companyId: linked.companyId, records };
}
