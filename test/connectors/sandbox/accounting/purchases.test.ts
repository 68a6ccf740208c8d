import { describe, expect, it } from 'vitest';
import { AS_OF, Checks, byId, cents, fetchAll, settings, sum } from './helpers.js';

const S = settings(600);

describe.each([0, 1, 3])('purchase side at epoch %i', (epoch) => {
  const bills = fetchAll('bills', S, epoch);
  const billById = byId(bills);
  const payments = fetchAll('billPayments', S, epoch);
  const paymentById = byId(payments);
  const credits = fetchAll('billCreditNotes', S, epoch);
  const creditById = byId(credits);

  it('bill totals add up and status agrees with amount due and allocations', () => {
    const c = new Checks();
    for (const { id, data: bill } of bills) {
      for (const line of bill.lineItems) {
        c.eq(cents(line.subTotal), Math.round(line.quantity * cents(line.unitAmount)), `${id} line subTotal`);
        c.eq(cents(line.totalAmount), cents(line.subTotal) + cents(line.taxAmount), `${id} line total`);
      }
      c.eq(sum(bill.lineItems.map((l: any) => cents(l.subTotal))), cents(bill.subTotal), `${id} subTotal`);
      c.eq(sum(bill.lineItems.map((l: any) => cents(l.taxAmount))), cents(bill.taxAmount), `${id} taxAmount`);
      c.eq(cents(bill.totalAmount), cents(bill.subTotal) + cents(bill.taxAmount), `${id} totalAmount`);
      const allocated = sum(bill.paymentAllocations.map((a: any) => cents(a.allocation.totalAmount)));
      const due = cents(bill.amountDue);
      c.eq(due, cents(bill.totalAmount) - allocated, `${id} amountDue`);
      if (bill.status === 'Paid') c.ok(due === 0 && allocated === cents(bill.totalAmount), `${id} paid`);
      else if (bill.status === 'PartiallyPaid') c.ok(due > 0 && due < cents(bill.totalAmount), `${id} part paid`);
      else
        c.ok(
          ['Open', 'Void', 'Draft'].includes(bill.status) && bill.paymentAllocations.length === 0,
          `${id} ${bill.status} has allocations`,
        );
      c.ok(bill.issueDate.slice(0, 10) <= AS_OF && bill.dueDate > bill.issueDate, `${id} dates`);
      for (const a of bill.paymentAllocations) {
        const other = paymentById.get(a.payment.id) ?? creditById.get(a.payment.id);
        c.ok(other && other.totalAmount === a.allocation.totalAmount, `${id} allocation ${a.payment.id}`);
      }
    }
    expect(c.failures).toEqual([]);
    const statuses = new Set(bills.map((b) => b.data.status));
    for (const s of ['Paid', 'Open', 'PartiallyPaid']) expect(statuses.has(s)).toBe(true);
  });

  it('bill payments and supplier credits reference existing bills and match their allocations', () => {
    const c = new Checks();
    for (const { id, data: p } of payments) {
      const link = p.lines[0].links[0];
      const bill = billById.get(link.id);
      c.ok(link.type === 'Bill' && bill, `${id} bill`);
      if (!bill) continue;
      const allocation = bill.paymentAllocations.find((a: any) => a.payment.id === id);
      c.ok(
        allocation && allocation.allocation.totalAmount === p.totalAmount && allocation.allocation.allocatedOnDate === p.date,
        `${id} allocation`,
      );
      c.eq(cents(link.amount), -cents(p.totalAmount), `${id} link amount`);
      c.eq(p.supplierRef.id, bill.supplierRef.id, `${id} supplier`);
      c.eq(p.currency, bill.currency, `${id} currency`);
    }
    for (const { id, data: cn } of credits) {
      const billId = cn.paymentAllocations[0].payment.id;
      const bill = billById.get(billId);
      c.ok(bill && cn.createdFromRefs[0].id === billId, `${id} bill`);
      if (!bill) continue;
      const allocation = bill.paymentAllocations.find((a: any) => a.payment.id === id);
      c.ok(allocation && allocation.allocation.totalAmount === cn.totalAmount, `${id} allocation`);
      c.eq(cents(cn.totalAmount), cents(cn.subTotal) + cents(cn.totalTaxAmount), `${id} totals`);
      c.eq(cn.remainingCredit, 0, `${id} remaining`);
      c.eq(cn.supplierRef.id, bill.supplierRef.id, `${id} supplier`);
    }
    expect(c.failures).toEqual([]);
  });

  it('purchase orders and item receipts match their bills', () => {
    const c = new Checks();
    const orders = byId(fetchAll('purchaseOrders', S, epoch));
    const receipts = fetchAll('itemReceipts', S, epoch);
    const billOfOrder = new Map<string, any>();
    for (const { id, data: bill } of bills) {
      for (const ref of bill.purchaseOrderRefs ?? []) {
        const po = orders.get(ref.id);
        c.ok(po && po.purchaseOrderNumber === ref.purchaseOrderNumber, `${id} purchase order ${ref.id}`);
        if (!po) continue;
        billOfOrder.set(ref.id, bill);
        c.eq(po.totalAmount, bill.totalAmount, `${ref.id} total`);
        c.eq(po.supplierRef.id, bill.supplierRef.id, `${ref.id} supplier`);
        c.ok(po.issueDate <= bill.issueDate, `${ref.id} issued before the bill`);
        c.eq(po.status, bill.status === 'Draft' ? 'Open' : bill.status === 'Void' ? 'Void' : 'Closed', `${ref.id} status`);
        for (const line of bill.lineItems) c.eq(line.purchaseOrderLineRef?.id, ref.id, `${id} line order ref`);
      }
    }
    c.eq(billOfOrder.size, orders.size, 'every purchase order belongs to a bill');
    for (const { id, data: r } of receipts) {
      const bill = billOfOrder.get(r.purchaseOrderRefs[0].id);
      c.ok(bill, `${id} order`);
      if (!bill) continue;
      c.ok(r.receivedDate <= bill.issueDate, `${id} received before billed`);
      c.eq(r.supplierRef.id, bill.supplierRef.id, `${id} supplier`);
      c.eq(cents(r.subTotal), sum(r.lineItems.map((l: any) => cents(l.subTotal))), `${id} subTotal`);
      for (const line of r.lineItems)
        c.ok(
          bill.lineItems.some((b: any) => b.itemRef?.id === line.itemRef.id && b.quantity === line.quantity),
          `${id} line`,
        );
    }
    expect(c.failures).toEqual([]);
    expect(receipts.length).toBeGreaterThan(0);
  });

  it('references point to existing suppliers, items, accounts, tax rates and payment methods', () => {
    const c = new Checks();
    const suppliers = byId(fetchAll('suppliers', S, epoch));
    const items = byId(fetchAll('items', S, epoch));
    const accounts = byId(fetchAll('chartOfAccounts', S, epoch));
    const taxRates = byId(fetchAll('taxRates', S, epoch));
    const methods = byId(fetchAll('paymentMethods', S, epoch));
    const docs = [...bills, ...credits, ...fetchAll('purchaseOrders', S, epoch), ...fetchAll('itemReceipts', S, epoch)];
    for (const { id, data } of [...docs, ...payments]) {
      c.eq(suppliers.get(data.supplierRef.id)?.supplierName, data.supplierRef.supplierName, `${id} supplier`);
    }
    for (const { id, data } of docs) {
      for (const line of data.lineItems) {
        if (line.itemRef) c.eq(items.get(line.itemRef.id)?.isBillItem, true, `${id} bill item`);
        c.eq(accounts.get(line.accountRef.id)?.name, line.accountRef.name, `${id} account`);
        if (line.taxRateRef) c.ok(taxRates.has(line.taxRateRef.id), `${id} tax rate`);
      }
    }
    for (const { id, data } of payments) {
      c.eq(accounts.get(data.accountRef.id)?.isBankAccount, true, `${id} bank account`);
      c.ok(methods.has(data.paymentMethodRef.id), `${id} payment method`);
    }
    expect(c.failures).toEqual([]);
  });
});
