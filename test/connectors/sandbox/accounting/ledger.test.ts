import { describe, expect, it } from 'vitest';
import type { DataType } from '../../../../src/codat-model/data-types.js';
import { Checks, byId, cents, fetchAll, settings, sum } from './helpers.js';

const S = settings(600);
const POSTED = new Set(['Submitted', 'Open', 'PartiallyPaid', 'Paid']);

describe.each([0, 1, 3])('ledger at epoch %i', (epoch) => {
  const entries = fetchAll('journalEntries', S, epoch);
  const accounts = byId(fetchAll('chartOfAccounts', S, epoch));
  const bankAccounts = byId(fetchAll('bankAccounts', S, epoch));
  const ids = (dataType: DataType) => new Set(fetchAll(dataType, S, epoch).map((r) => r.id));

  it('every journal entry balances and refers to existing accounts, contacts and records', () => {
    const c = new Checks();
    const customers = ids('customers');
    const suppliers = ids('suppliers');
    const journals = ids('journals');
    const records = new Map<string, Set<string>>();
    for (const { id, data: je } of entries) {
      c.eq(sum(je.journalLines.map((l: any) => cents(l.netAmount))), 0, `${id} balance`);
      c.ok(je.journalLines.length >= 2, `${id} lines`);
      c.ok(journals.has(je.journalRef.id), `${id} journal`);
      for (const line of je.journalLines) {
        c.eq(accounts.get(line.accountRef.id)?.name, line.accountRef.name, `${id} account`);
        if (line.contactRef)
          c.ok((line.contactRef.dataType === 'customers' ? customers : suppliers).has(line.contactRef.id), `${id} contact`);
      }
      const type = je.recordRef.dataType as DataType;
      if (!records.has(type)) records.set(type, ids(type));
      c.ok(records.get(type)!.has(je.recordRef.id), `${id} record ${type} ${je.recordRef.id}`);
    }
    expect(c.failures).toEqual([]);
  });

  it('posted documents, payments and cash transactions each have exactly one journal entry', () => {
    const c = new Checks();
    const recorded = new Map<string, number>();
    for (const { data: je } of entries) recorded.set(je.recordRef.id, (recorded.get(je.recordRef.id) ?? 0) + 1);
    const expectOne = (dataType: DataType, posted: (d: any) => boolean) => {
      for (const { id, data } of fetchAll(dataType, S, epoch)) c.eq(recorded.get(id) ?? 0, posted(data) ? 1 : 0, `${dataType} ${id}`);
    };
    expectOne('invoices', (d) => POSTED.has(d.status));
    expectOne('bills', (d) => POSTED.has(d.status));
    for (const t of [
      'creditNotes',
      'payments',
      'billCreditNotes',
      'billPayments',
      'directCosts',
      'directIncomes',
      'transfers',
    ] as DataType[])
      expectOne(t, () => true);
    expect(c.failures).toEqual([]);
  });

  it('account balances are the sums of their journal lines', () => {
    const c = new Checks();
    const base = new Map<string, number>();
    const native = new Map<string, number>();
    for (const { data: je } of entries) {
      for (const l of je.journalLines) {
        base.set(l.accountRef.id, (base.get(l.accountRef.id) ?? 0) + cents(l.netAmount));
        native.set(l.accountRef.id, (native.get(l.accountRef.id) ?? 0) + cents(l.transactionAmount));
      }
    }
    for (const [id, account] of accounts) {
      const expected = account.currency === 'GBP' ? (base.get(id) ?? 0) : (native.get(id) ?? 0);
      c.eq(cents(account.currentBalance), expected, `${account.name} balance`);
    }
    expect(c.failures).toEqual([]);
  });

  it('bank transactions of each bank account sum to its balance', () => {
    const c = new Checks();
    const totals = new Map<string, number>();
    for (const { id, data: t } of fetchAll('bankTransactions', S, epoch)) {
      c.ok(bankAccounts.has(t.accountId), `${id} account`);
      totals.set(t.accountId, (totals.get(t.accountId) ?? 0) + cents(t.amount));
    }
    for (const [id, account] of bankAccounts) c.eq(totals.get(id) ?? 0, cents(account.balance), `${account.accountName} balance`);
    expect(c.failures).toEqual([]);
    expect(bankAccounts.size).toBeGreaterThanOrEqual(5);
  });

  it('account transactions match the payments, bill payments, direct costs, direct incomes and transfers they record', () => {
    const c = new Checks();
    const children = new Map<string, Map<string, any>>();
    const seen = new Map<string, number>();
    for (const { id, data: at } of fetchAll('accountTransactions', S, epoch)) {
      const line = at.lines[0];
      const type = line.recordRef.dataType as DataType;
      if (!children.has(type)) children.set(type, byId(fetchAll(type, S, epoch)));
      const child = children.get(type)!.get(line.recordRef.id);
      c.ok(child && at.transactionId === line.recordRef.id, `${id} record`);
      c.ok(bankAccounts.get(at.bankAccountRef.id)?.accountName === at.bankAccountRef.name, `${id} bank account`);
      c.eq(cents(at.totalAmount), cents(line.amount), `${id} total`);
      seen.set(line.recordRef.id, (seen.get(line.recordRef.id) ?? 0) + 1);
      if (!child) continue;
      const amount = type === 'transfers' ? (at.totalAmount < 0 ? child.from.amount : child.to.amount) : child.totalAmount;
      c.eq(Math.abs(cents(at.totalAmount)), cents(amount), `${id} amount`);
      const sign = type === 'payments' || type === 'directIncomes' ? 1 : type === 'transfers' ? Math.sign(at.totalAmount) : -1;
      c.eq(Math.sign(at.totalAmount), sign, `${id} sign`);
    }
    for (const type of ['payments', 'billPayments', 'directCosts', 'directIncomes', 'transfers'] as DataType[]) {
      for (const { id } of fetchAll(type, S, epoch))
        c.eq(seen.get(id) ?? 0, type === 'transfers' ? 2 : 1, `${type} ${id} account transactions`);
    }
    expect(c.failures).toEqual([]);
  });

  it('direct costs, direct incomes and transfers are consistent and point to existing records', () => {
    const c = new Checks();
    const accountTransactions = ids('accountTransactions');
    const contacts = { customers: ids('customers'), suppliers: ids('suppliers') };
    for (const type of ['directCosts', 'directIncomes'] as const) {
      for (const { id, data: d } of fetchAll(type, S, epoch)) {
        c.eq(cents(d.totalAmount), cents(d.subTotal) + cents(d.taxAmount), `${id} totals`);
        c.eq(sum(d.lineItems.map((l: any) => cents(l.totalAmount))), cents(d.totalAmount), `${id} lines`);
        c.eq(cents(d.paymentAllocations[0].allocation.totalAmount), cents(d.totalAmount), `${id} allocation`);
        c.ok(accountTransactions.has(d.paymentAllocations[0].payment.id), `${id} account transaction`);
        c.ok(accounts.get(d.paymentAllocations[0].payment.accountRef.id)?.isBankAccount, `${id} bank`);
        if (d.contactRef) c.ok(contacts[d.contactRef.dataType as 'customers' | 'suppliers'].has(d.contactRef.id), `${id} contact`);
      }
    }
    for (const { id, data: t } of fetchAll('transfers', S, epoch)) {
      c.ok(accounts.get(t.from.accountRef.id)?.isBankAccount && accounts.get(t.to.accountRef.id)?.isBankAccount, `${id} accounts`);
      c.ok(t.from.accountRef.id !== t.to.accountRef.id && t.from.amount > 0 && t.to.amount > 0, `${id} amounts`);
      c.eq(t.from.currency, accounts.get(t.from.accountRef.id)?.currency, `${id} from currency`);
      c.eq(t.to.currency, accounts.get(t.to.accountRef.id)?.currency, `${id} to currency`);
      if (t.from.currency === t.to.currency) c.eq(t.from.amount, t.to.amount, `${id} same-currency amounts`);
      // Its description says what it moved, between the accounts it names.
      const from = accounts.get(t.from.accountRef.id)!;
      const to = accounts.get(t.to.accountRef.id)!;
      const said = String(t.description).replace(/ \(ref \d+\)$/, '');
      const expected =
        from.currency !== 'GBP'
          ? `${from.currency} to GBP conversion`
          : to.currency !== 'GBP'
            ? `GBP to ${to.currency} top-up`
            : /Card/.test(to.name)
              ? 'Credit card repayment'
              : /Savings/.test(to.name)
                ? 'Transfer to savings'
                : 'Transfer from savings';
      c.eq(said, expected, `${id} description`);
    }
    expect(c.failures).toEqual([]);
  });
});
