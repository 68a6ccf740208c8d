import { addDecimals, negateDecimal, plainDecimal } from '../../lib/decimal.js';
import type { AgedAmount, AgedSide } from './aged-grouping.js';

/*
 * What is outstanding as at a report date, from the records a company's platform serves in Codat's shape
 * (docs/lending/aged-reports.md, "What is outstanding"): each document's total less the reductions dated on or before
 * the date, each reduction counted once whichever records show it; credit notes' unapplied credit; money on account.
 */

type Data = Record<string, any>;

/** The records an aged report reads, as served: debtors' invoices, credit notes and payments (creditors': bills, …). */
export interface AgedInputs {
  documents: Iterable<Data>;
  credits: Iterable<Data>;
  payments: Iterable<Data>;
}

/** How each side names things: the counterparty's reference and name, and a payment link's type for each record. */
const SIDES = {
  debtors: { ref: 'customerRef', name: 'companyName', documentLink: 'Invoice', details: ['Invoices', 'CreditNotes', 'Payments'] },
  creditors: { ref: 'supplierRef', name: 'supplierName', documentLink: 'Bill', details: ['Bills', 'BillCreditNotes', 'BillPayments'] },
} as const;

/** A payment link that leaves the money on the counterparty's account rather than settling a record. */
const ON_ACCOUNT = new Set(['PaymentOnAccount', 'Unlinked']);

/** The currency served for a record that names none: ISO 4217's code for "no currency". */
export const NO_CURRENCY = 'XXX';

/** What is left out as at any date: a document not issued (Draft) or cancelled (Void). */
const LEFT_OUT = new Set(['Draft', 'Void']);

const day = (value: unknown): string | undefined =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;
const money = (value: unknown): string | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? plainDecimal(value) : undefined;

/** A reduction of a document (a payment or a credit applied to it), keyed by what made it and what it reduced. */
interface Reduction {
  key: string;
  date: string;
  amount: string;
}

/**
 * The amounts outstanding as at `reportDate`, for `agedRows`. Reductions come from the payment records' links first
 * (`Invoice`/`Bill` links reduce that document by −amount; `CreditNote` links use up that credit by +amount), dated by
 * the line's `allocatedOnDate`, else the payment's `date`; then from each document's and credit's own
 * `paymentAllocations`, where not already counted under the same (maker, document) pair and dated with an amount.
 */
export function agedAmounts<S extends AgedSide>(side: S, inputs: AgedInputs, reportDate: string): AgedAmount<S>[] {
  const names = SIDES[side];
  const [documentDetail, creditDetail, paymentDetail] = names.details as unknown as AgedAmount<S>['detail'][];
  const reductions = new Map<string, Reduction[]>();
  const counted = new Set<string>();
  const reduce = (target: string, reduction: Reduction) => {
    if (counted.has(reduction.key)) return;
    counted.add(reduction.key);
    const list = reductions.get(target);
    if (list) list.push(reduction);
    else reductions.set(target, [reduction]);
  };
  const out: AgedAmount<S>[] = [];
  /** One amount of a record: its counterparty and currency, as aged. */
  const aged = (record: Data, date: string, detail: AgedAmount<S>['detail'], amount: string): AgedAmount<S> => {
    const ref = record[names.ref] as Data | undefined;
    const name = ref?.[names.name];
    return {
      counterpartyId: String(ref?.id ?? ''),
      ...(typeof name === 'string' ? { counterpartyName: name } : {}),
      currency: record.currency ?? NO_CURRENCY,
      date,
      detail,
      amount,
    };
  };

  for (const payment of inputs.payments) {
    const paid = day(payment.date);
    if (!paid) continue;
    for (const line of (payment.lines ?? []) as Data[]) {
      const links = (line.links ?? []) as Data[];
      const when = day(line.allocatedOnDate) ?? paid;
      for (const link of links) {
        const amount = money(link.amount);
        if (typeof link.id !== 'string' || amount === undefined) continue;
        if (link.type === names.documentLink)
          reduce(`document ${link.id}`, { key: `${payment.id} ${link.id}`, date: when, amount: negateDecimal(amount) });
        else if (link.type === 'CreditNote') reduce(`credit ${link.id}`, { key: `${payment.id} ${link.id}`, date: when, amount });
      }
      // Money on account: a line that settles nothing, or says it is on account, as at the payment's date.
      const lineAmount = money(line.amount);
      const onAccount = links.length === 0 || links.every((link) => ON_ACCOUNT.has(link.type));
      if (onAccount && lineAmount !== undefined && paid <= reportDate)
        out.push(aged(payment, paid, paymentDetail, negateDecimal(lineAmount)));
    }
  }

  const allocationsOf = (record: Data, target: string) => {
    for (const allocation of (record.paymentAllocations ?? []) as Data[]) {
      const amount = money(allocation.allocation?.totalAmount);
      const date = day(allocation.allocation?.allocatedOnDate) ?? day(allocation.payment?.paidOnDate);
      const maker = allocation.payment?.id;
      if (amount === undefined || date === undefined || typeof maker !== 'string') continue;
      reduce(target, { key: `${maker} ${record.id}`, date, amount });
    }
  };
  /** What is left of `record` as at the report date: its total less the reductions dated on or before it. */
  const remaining = (record: Data, target: string): string | undefined => {
    const total = money(record.totalAmount);
    if (total === undefined) return undefined;
    const applied = (reductions.get(target) ?? []).filter((r) => r.date <= reportDate).map((r) => negateDecimal(r.amount));
    return addDecimals([total, ...applied]);
  };

  // Documents are owed (positive); unused credit is owed back (negative).
  const outstanding = (records: Iterable<Data>, kind: 'document' | 'credit', detail: AgedAmount<S>['detail']) => {
    for (const record of records) {
      const issued = day(record.issueDate);
      if (!issued || issued > reportDate || LEFT_OUT.has(record.status)) continue;
      allocationsOf(record, `${kind} ${record.id}`);
      const left = remaining(record, `${kind} ${record.id}`);
      if (left !== undefined) out.push(aged(record, issued, detail, kind === 'document' ? left : negateDecimal(left)));
    }
  };
  outstanding(inputs.documents, 'document', documentDetail);
  outstanding(inputs.credits, 'credit', creditDetail);
  return out;
}
