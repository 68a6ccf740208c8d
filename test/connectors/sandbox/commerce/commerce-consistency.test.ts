import { describe, expect, it } from 'vitest';
import type { DataType } from '../../../../src/codat-model/data-types.js';
import { Calendar } from '../../../../src/connectors/sandbox/banking/kit/calendar.js';
import { commerceSandbox } from '../../../../src/connectors/sandbox/commerce/index.js';
import { CommercePlan } from '../../../../src/connectors/sandbox/commerce/plan.js';
import { payoutDay, payoutPeriod } from '../../../../src/connectors/sandbox/commerce/transactions.js';
import { collect } from '../banking/checks.js';

type Row = Record<string, any>;
const cents = (amount: number) => Math.round(amount * 100);
const sumCents = (values: number[]) => values.reduce((s, v) => s + cents(v), 0);

function load(invoices: number, epoch: number, asOf = '2024-05-15') {
  const settings = { seed: 9, invoices, asOf };
  const rows = (dataType: DataType) => collect(commerceSandbox.dataTypes.get(dataType)!, settings, epoch).map((r) => r.data as Row);
  const byId = (list: Row[]) => new Map(list.map((r) => [r.id as string, r]));
  return {
    settings,
    orders: rows('commerce-orders'),
    customers: byId(rows('commerce-customers')),
    locations: byId(rows('commerce-locations')),
    products: byId(rows('commerce-products')),
    categories: byId(rows('commerce-productCategories')),
    taxComponents: byId(rows('commerce-taxComponents')),
    methods: byId(rows('commerce-paymentMethods')),
    payments: byId(rows('commerce-payments')),
    transactions: rows('commerce-transactions'),
    disputes: rows('commerce-disputes'),
  };
}

describe.each([
  [200, '2024-05-15'],
  [2500, '2024-05-15'],
  [300, '2023-12-31'],
])('commerce Sandbox consistency (%i invoices, asOf %s)', (invoices, asOf) => {
  it.each([0, 1, 3])('epoch %i: orders, catalogue, payments, transactions and disputes agree', (epoch) => {
    const data = load(invoices, epoch, asOf);
    const problems: string[] = [];
    const check = (ok: boolean, message: string) => {
      if (!ok) problems.push(message);
    };
    const variants = new Map<string, { product: Row; variant: Row }>();
    for (const product of data.products.values()) for (const variant of product.variants) variants.set(variant.id, { product, variant });

    // Tax allocations name existing components; their amounts add up to the line's tax.
    const checkTaxes = (where: string, taxes: Row[], taxAmount: number, percentage: number) => {
      let rate = 0;
      for (const t of taxes) {
        const component = data.taxComponents.get(t.taxComponentRef.id);
        check(component?.name === t.taxComponentRef.name, `${where}: tax component ${t.taxComponentRef.id}`);
        rate += component?.rate ?? 0;
      }
      check(sumCents(taxes.map((t) => t.rate)) === cents(taxAmount), `${where}: taxes ≠ tax amount`);
      check(Math.abs(rate * 100 - percentage) < 1e-9, `${where}: taxPercentage ${percentage} ≠ ${rate * 100}`);
    };

    const paymentIdsInOrders = new Set<string>();
    for (const order of data.orders) {
      const where = `order ${order.orderNumber}`;
      if (order.customerRef) {
        const customer = data.customers.get(order.customerRef.id);
        check(customer?.customerName === order.customerRef.name, `${where}: customer`);
        check(!customer || customer.createdDate < order.createdDate, `${where}: customer created after the order`);
      }
      check(data.locations.get(order.locationRef.id)?.name === order.locationRef.name, `${where}: location`);
      let lines = 0;
      let lineTax = 0;
      let discounts = 0;
      for (const line of order.orderLineItems) {
        const found = line.productVariantRef && variants.get(line.productVariantRef.id);
        if (line.productRef) {
          check(data.products.get(line.productRef.id)?.name === line.productRef.name, `${where}: product`);
          check(found?.product.id === line.productRef.id && found?.variant.name === line.productVariantRef.name, `${where}: variant`);
          const price = found?.variant.prices.find((p: Row) => p.currency === order.currency);
          check(price?.unitPrice === line.unitPrice, `${where}: unit price ${line.unitPrice} ≠ ${price?.unitPrice}`);
          check(!found || found.variant.createdDate < order.createdDate, `${where}: product created after the order`);
        } else check(!line.productVariantRef, `${where}: variant without product`);
        const discount = sumCents(line.discountAllocations.map((d: Row) => d.totalAmount));
        check(
          cents(line.quantity * line.unitPrice) - discount + cents(line.totalTaxAmount) === cents(line.totalAmount),
          `${where}: line total`,
        );
        checkTaxes(where, line.taxes, line.totalTaxAmount, line.taxPercentage);
        lines += cents(line.totalAmount);
        lineTax += cents(line.totalTaxAmount);
        discounts += discount;
      }
      for (const charge of order.serviceCharges) checkTaxes(`${where} charge`, charge.taxes, charge.taxAmount, charge.taxPercentage);
      const charges = sumCents(order.serviceCharges.map((c: Row) => c.totalAmount));
      const chargeTax = sumCents(order.serviceCharges.map((c: Row) => c.taxAmount));
      check(order.totalRefund <= 0, `${where}: refund positive`);
      check(cents(order.totalAmount) === lines + charges + cents(order.totalRefund), `${where}: total ≠ lines + charges + refund`);
      check(cents(order.totalTaxAmount) === lineTax + chargeTax, `${where}: tax ≠ line taxes`);
      check(cents(order.totalDiscount) === discounts, `${where}: discount`);
      // Payments (including a negative refund) sum to the total and are the commerce-payments records.
      check(sumCents(order.payments.map((p: Row) => p.amount)) === cents(order.totalAmount), `${where}: payments ≠ total`);
      for (const ref of order.payments) {
        paymentIdsInOrders.add(ref.id);
        const payment = data.payments.get(ref.id);
        check(
          payment !== undefined &&
            payment.amount === ref.amount &&
            payment.status === ref.status &&
            payment.currency === order.currency &&
            payment.createdDate === ref.createdDate,
          `${where}: payment ${ref.id} differs from its record`,
        );
      }
    }
    check(paymentIdsInOrders.size === data.payments.size, 'payments not belonging to a live order');
    for (const payment of data.payments.values()) {
      check(paymentIdsInOrders.has(payment.id), `payment ${payment.id} has no order`);
      check(data.methods.get(payment.paymentMethodRef.id)?.name === payment.paymentMethodRef.name, `payment ${payment.id}: method`);
    }

    // Processor transactions reference settled card payments; payouts pay out each period's net, per currency.
    const plan = new CommercePlan({ settings: data.settings, epoch });
    const cal = new Calendar(asOf);
    const dayOf = (local: string) =>
      Math.round((Date.parse(`${local.slice(0, 10)}T00:00:00Z`) - Date.parse(`${cal.day(0)}T00:00:00Z`)) / 86_400_000);
    const period = payoutPeriod(plan);
    const net = new Map<string, number>();
    const payouts = new Map<string, number>();
    for (const t of data.transactions) {
      const bucket = Math.floor(dayOf(t.createdDate) / period);
      if (t.type === 'Payout') {
        payouts.set(`${Math.floor((dayOf(t.createdDate) - 2) / period)}|${t.currency}`, cents(t.totalAmount));
        continue;
      }
      const payment = data.payments.get(t.transactionSourceRef?.id);
      check(t.transactionSourceRef?.type === 'Payment' && payment !== undefined, `transaction ${t.id}: source`);
      check(payment?.currency === t.currency && payment?.status === 'Paid', `transaction ${t.id}: currency or status`);
      if (t.type === 'Payment' || t.type === 'Refund') check(payment?.amount === t.totalAmount, `transaction ${t.id}: amount`);
      if (t.type === 'PaymentFee')
        check(t.totalAmount < 0 && -t.totalAmount < 0.05 * (payment?.amount ?? 0) + 0.5, `transaction ${t.id}: fee`);
      net.set(`${bucket}|${t.currency}`, (net.get(`${bucket}|${t.currency}`) ?? 0) + cents(t.totalAmount));
    }
    for (const [key, amount] of net) {
      const bucket = Number(key.split('|')[0]);
      if (payoutDay(plan, bucket) <= cal.days - 1 && amount > 0)
        check(payouts.get(key) === -amount, `payout ${key}: ${payouts.get(key)} ≠ ${-amount}`);
      else check(!payouts.has(key), `payout ${key} before it is due`);
    }
    for (const key of payouts.keys()) check(net.has(key), `payout ${key} of nothing`);

    for (const d of data.disputes) {
      const [ref] = d.disputedTransactions;
      const payment = data.payments.get(ref.id);
      check(ref.type === 'Payment' && payment !== undefined, `dispute ${d.id}: payment`);
      check(payment?.currency === d.currency && cents(payment?.amount ?? 0) === -cents(d.totalAmount), `dispute ${d.id}: amount`);
      check(
        String(payment?.paymentProvider).startsWith('Stripe') && payment?.status === 'Paid',
        `dispute ${d.id}: not a settled card payment`,
      );
    }

    // Catalogue: prices in three currencies, stock adds up at existing locations, categories form a tree.
    const categoryNames = new Set([...data.categories.values()].map((c) => c.name));
    for (const product of data.products.values()) {
      check(categoryNames.has(product.categorization), `product ${product.id}: category ${product.categorization}`);
      for (const variant of product.variants) {
        check(variant.prices.map((p: Row) => p.currency).join() === 'GBP,USD,EUR', `variant ${variant.id}: prices`);
        const stock = variant.inventory.locations;
        check(
          stock.every((l: Row) => data.locations.get(l.locationRef.id)?.name === l.locationRef.name),
          `variant ${variant.id}: stock location`,
        );
        if (variant.inventory.totalQuantity !== null)
          check(
            variant.inventory.totalQuantity === stock.reduce((s: number, l: Row) => s + l.quantity, 0),
            `variant ${variant.id}: stock total`,
          );
      }
    }
    for (const category of data.categories.values()) {
      check(
        category.ancestorRefs.every((a: Row) => data.categories.get(a.id)?.hasChildren === true),
        `category ${category.id}: ancestors`,
      );
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(data.orders.length).toBeGreaterThan(invoices * 0.98);
  });
});

describe('commerce Sandbox realism', () => {
  it('sells in GBP, USD and EUR across stores and online, with discounts, shipping, refunds and split payments', () => {
    const { orders, payments, transactions, disputes } = load(2500, 0);
    expect(new Set(orders.map((o) => o.currency))).toEqual(new Set(['GBP', 'USD', 'EUR']));
    expect(new Set(orders.map((o) => o.country)).size).toBeGreaterThanOrEqual(4);
    expect(orders.filter((o) => o.totalDiscount > 0).length).toBeGreaterThan(200);
    expect(orders.filter((o) => o.serviceCharges.length > 0).length).toBeGreaterThan(200);
    expect(orders.filter((o) => o.totalRefund < 0).length).toBeGreaterThan(40);
    expect(orders.filter((o) => o.payments.length > 1 && o.payments[1].amount > 0).length).toBeGreaterThan(5);
    expect(orders.filter((o) => !o.closedDate).length).toBeGreaterThan(10);
    expect(new Set([...payments.values()].map((p) => p.paymentMethodRef.name)).size).toBeGreaterThanOrEqual(8);
    const types = new Set(transactions.map((t) => t.type));
    for (const type of ['Payment', 'PaymentFee', 'Refund', 'Payout']) expect(types.has(type)).toBe(true);
    expect(new Set(disputes.map((d) => d.status)).size).toBeGreaterThanOrEqual(3);
  });
});
