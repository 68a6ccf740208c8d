import { describe, expect, it } from 'vitest';
import { AS_OF, Checks, LOCAL, byId, cents, fetchAll, settings, sum } from './helpers.js';

const S = settings(600);

describe.each([0, 1, 3])('sales side at epoch %i', (epoch) => {
  const invoices = fetchAll('invoices', S, epoch);
  const invoiceById = byId(invoices);
  const payments = fetchAll('payments', S, epoch);
  const paymentById = byId(payments);
  const creditNotes = fetchAll('creditNotes', S, epoch);
  const creditNoteById = byId(creditNotes);

  it('invoice totals add up from the lines, cents-exact', () => {
    const c = new Checks();
    for (const { id, data: inv } of invoices) {
      for (const line of inv.lineItems) {
        c.eq(cents(line.subTotal), Math.round(line.quantity * cents(line.unitAmount)) - cents(line.discountAmount), `${id} line subTotal`);
        c.eq(cents(line.totalAmount), cents(line.subTotal) + cents(line.taxAmount), `${id} line total`);
        c.eq(cents(line.taxAmount), Math.round((cents(line.subTotal) * line.taxRateRef.effectiveTaxRate) / 100), `${id} line tax`);
      }
      c.eq(sum(inv.lineItems.map((l: any) => cents(l.subTotal))), cents(inv.subTotal), `${id} subTotal`);
      c.eq(sum(inv.lineItems.map((l: any) => cents(l.taxAmount))), cents(inv.totalTaxAmount), `${id} totalTaxAmount`);
      c.eq(sum(inv.lineItems.map((l: any) => cents(l.discountAmount))), cents(inv.totalDiscount), `${id} totalDiscount`);
      c.eq(cents(inv.totalAmount), cents(inv.subTotal) + cents(inv.totalTaxAmount), `${id} totalAmount`);
      c.ok(inv.totalAmount > 0, `${id} positive`);
    }
    expect(c.failures).toEqual([]);
  });

  it('invoice status agrees with amount due and allocations', () => {
    const c = new Checks();
    for (const { id, data: inv } of invoices) {
      const allocated = sum(inv.paymentAllocations.map((a: any) => cents(a.allocation.totalAmount)));
      const due = cents(inv.amountDue);
      const total = cents(inv.totalAmount);
      c.eq(due, total - allocated, `${id} amountDue`);
      for (const a of inv.paymentAllocations) c.eq(cents(a.payment.totalAmount), cents(a.allocation.totalAmount), `${id} allocation`);
      if (inv.status === 'Paid') {
        c.ok(due === 0 && allocated === total, `${id} Paid but due ${due}`);
        c.eq(
          inv.paidOnDate,
          inv.paymentAllocations
            .map((a: any) => a.allocation.allocatedOnDate)
            .sort()
            .at(-1),
          `${id} paidOnDate`,
        );
      } else if (inv.status === 'PartiallyPaid') {
        c.ok(due > 0 && due < total && inv.paymentAllocations.length > 0, `${id} PartiallyPaid but due ${due} of ${total}`);
      } else {
        c.ok(['Submitted', 'Void', 'Draft'].includes(inv.status), `${id} status ${inv.status}`);
        c.eq(inv.paymentAllocations.length, 0, `${id} ${inv.status} allocations`);
      }
      if (inv.status !== 'Paid') c.eq(inv.paidOnDate, undefined, `${id} paidOnDate`);
    }
    expect(c.failures).toEqual([]);
  });

  it('invoice dates and currencies are realistic', () => {
    const c = new Checks();
    for (const { id, data: inv } of invoices) {
      c.ok(LOCAL.test(inv.issueDate) && inv.issueDate.slice(0, 10) <= AS_OF && inv.dueDate > inv.issueDate, `${id} dates`);
      for (const a of inv.paymentAllocations) {
        c.ok(a.allocation.allocatedOnDate >= inv.issueDate && a.allocation.allocatedOnDate.slice(0, 10) <= AS_OF, `${id} allocation date`);
        c.ok(a.allocation.currency === inv.currency && a.allocation.currencyRate === inv.currencyRate, `${id} allocation currency`);
      }
      if (inv.currency === 'GBP') c.eq(inv.currencyRate, 1, `${id} rate`);
      else
        c.ok(
          ['USD', 'EUR'].includes(inv.currency) && inv.currencyRate > 0.7 && inv.currencyRate < 0.95,
          `${id} ${inv.currency} ${inv.currencyRate}`,
        );
    }
    expect(c.failures).toEqual([]);
  });

  it('payments reference existing invoices and match their allocations', () => {
    const c = new Checks();
    for (const { id, data: p } of payments) {
      const link = p.lines[0].links[0];
      const inv = invoiceById.get(link.id);
      c.ok(link.type === 'Invoice' && inv, `${id} invoice ${link.id}`);
      if (!inv) continue;
      const allocation = inv.paymentAllocations.find((a: any) => a.payment.id === id);
      c.ok(
        allocation && allocation.allocation.totalAmount === p.totalAmount && allocation.allocation.allocatedOnDate === p.date,
        `${id} allocation`,
      );
      c.eq(p.lines[0].amount, p.totalAmount, `${id} line`);
      c.eq(cents(link.amount), -cents(p.totalAmount), `${id} link amount`);
      c.eq(JSON.stringify(p.customerRef), JSON.stringify(inv.customerRef), `${id} customer`);
      c.ok(p.currency === inv.currency && p.currencyRate === inv.currencyRate, `${id} currency`);
    }
    expect(c.failures).toEqual([]);
  });

  it('every invoice allocation is an existing payment or credit note', () => {
    const c = new Checks();
    for (const { id, data: inv } of invoices) {
      for (const a of inv.paymentAllocations) {
        const other = paymentById.get(a.payment.id) ?? creditNoteById.get(a.payment.id);
        c.ok(other && other.totalAmount === a.allocation.totalAmount, `${id} allocation ${a.payment.id}`);
      }
    }
    expect(c.failures).toEqual([]);
  });

  it('credit notes reference existing invoices; allocated ones match the allocation', () => {
    const c = new Checks();
    for (const { id, data: cn } of creditNotes) {
      c.eq(cents(cn.totalAmount), cents(cn.subTotal) + cents(cn.totalTaxAmount), `${id} totals`);
      c.eq(sum(cn.lineItems.map((l: any) => cents(l.subTotal))), cents(cn.subTotal), `${id} lines`);
      const invoiceId = cn.lineItems[0].tracking.recordRef.id;
      const inv = invoiceById.get(invoiceId);
      c.ok(inv, `${id} invoice`);
      if (!inv) continue;
      c.eq(cn.customerRef.id, inv.customerRef.id, `${id} customer`);
      const allocation = inv.paymentAllocations.find((a: any) => a.payment.id === id);
      if (cn.status === 'Paid') {
        c.ok(cn.remainingCredit === 0 && cn.paymentAllocations[0].payment.id === invoiceId, `${id} allocated`);
        c.ok(allocation && allocation.allocation.totalAmount === cn.totalAmount, `${id} invoice allocation`);
      } else {
        c.ok(
          cn.status === 'Submitted' && cn.remainingCredit === cn.totalAmount && cn.paymentAllocations.length === 0 && !allocation,
          `${id} unallocated`,
        );
      }
    }
    expect(c.failures).toEqual([]);
    expect(creditNotes.length).toBeGreaterThan(0);
  });

  it('sales orders match their invoices', () => {
    const c = new Checks();
    const orders = byId(fetchAll('salesOrders', S, epoch));
    const referenced = new Set<string>();
    for (const { data: inv } of invoices) {
      for (const ref of inv.salesOrderRefs ?? []) {
        referenced.add(ref.id);
        const so = orders.get(ref.id);
        c.ok(so, `${inv.invoiceNumber} sales order`);
        if (!so) continue;
        c.ok(so.status === 'Closed' && so.invoicingStatus === 'Invoiced', `${ref.id} status`);
        c.ok(
          so.customerRef.id === inv.customerRef.id && so.totalAmount === inv.totalAmount && so.issueDate <= inv.issueDate,
          `${ref.id} matches`,
        );
      }
    }
    for (const [id, so] of orders)
      c.ok(so.status === 'Closed' ? referenced.has(id) : so.invoicingStatus === 'NotInvoiced', `${id} ${so.status}`);
    expect(c.failures).toEqual([]);
  });

  it('references point to existing customers, items, accounts, tax rates, tracking categories and payment methods', () => {
    const c = new Checks();
    const customers = byId(fetchAll('customers', S, epoch));
    const items = byId(fetchAll('items', S, epoch));
    const accounts = byId(fetchAll('chartOfAccounts', S, epoch));
    const taxRates = byId(fetchAll('taxRates', S, epoch));
    const tracking = byId(fetchAll('trackingCategories', S, epoch));
    const methods = byId(fetchAll('paymentMethods', S, epoch));
    const docs = [...invoices, ...creditNotes, ...fetchAll('salesOrders', S, epoch)];
    for (const { id, data } of [...docs, ...payments])
      c.eq(customers.get(data.customerRef.id)?.customerName, data.customerRef.companyName, `${id} customer`);
    for (const { id, data } of docs) {
      for (const line of data.lineItems) {
        c.eq(items.get(line.itemRef.id)?.name, line.itemRef.name, `${id} item`);
        c.eq(accounts.get(line.accountRef.id)?.name, line.accountRef.name, `${id} account`);
        c.eq(taxRates.get(line.taxRateRef.id)?.effectiveTaxRate, line.taxRateRef.effectiveTaxRate, `${id} tax rate`);
        for (const t of line.trackingCategoryRefs) c.eq(tracking.get(t.id)?.name, t.name, `${id} tracking`);
      }
    }
    for (const { id, data } of payments) {
      c.eq(accounts.get(data.accountRef.id)?.isBankAccount, true, `${id} bank account`);
      c.eq(methods.get(data.paymentMethodRef.id)?.name, data.paymentMethodRef.name, `${id} payment method`);
    }
    expect(c.failures).toEqual([]);
  });
});

describe('sales data is realistic', () => {
  it('has a status mix dominated by paid invoices, several currencies and years, and named customers', () => {
    const invoices = fetchAll('invoices', S, 0).map((r) => r.data);
    const count = (status: string) => invoices.filter((i) => i.status === status).length;
    expect(count('Paid') / invoices.length).toBeGreaterThan(0.6);
    for (const status of ['PartiallyPaid', 'Submitted', 'Void', 'Draft']) expect(count(status), status).toBeGreaterThan(0);
    for (const currency of ['GBP', 'USD', 'EUR'])
      expect(
        invoices.some((i) => i.currency === currency),
        currency,
      ).toBe(true);
    expect(new Set(invoices.map((i) => i.issueDate.slice(0, 4))).size).toBeGreaterThanOrEqual(4);
    const c = new Checks();
    for (const { id, data: cu } of fetchAll('customers', S, 0)) {
      c.ok(/^[A-Z][a-z]+ [A-Z][A-Za-z]+ /.test(cu.customerName), `${id} name ${cu.customerName}`);
      c.ok(/^[a-z]+\.[a-z]+@[a-z]+\.(co\.uk|com|eu)$/.test(cu.emailAddress), `${id} email ${cu.emailAddress}`);
      c.ok(/^\+\d/.test(cu.phone), `${id} phone`);
      c.ok(
        cu.addresses[0].type === 'Billing' && cu.addresses[0].line1 && cu.addresses[0].city && cu.addresses[0].postalCode,
        `${id} address`,
      );
    }
    expect(c.failures).toEqual([]);
  });
});
