import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/**
 * One Stripe account as the fake keeps it: its objects (customers, products, prices, charges, balance transactions,
 * disputes), its events, and its API keys. Objects start from Stripe's own example objects (fixtures3.json, beside
 * the spec in test/contracts/stripe/), so every field the spec requires is there, and change the way Stripe changes
 * them: a refund updates the charge and adds a balance transaction, each change is an event.
 */

// Stripe's objects are open-ended JSON (hence any).
export type StripeObject = Record<string, any>;

const FIXTURES = JSON.parse(readFileSync(new URL('../../contracts/stripe/fixtures3.json', import.meta.url), 'utf8')).resources as Record<
  string,
  StripeObject
>;
const fixture = (name: string): StripeObject => structuredClone(FIXTURES[name]);

export const RESOURCES = ['customers', 'products', 'prices', 'charges', 'balance_transactions', 'disputes'] as const;
export type Resource = (typeof RESOURCES)[number];

const PREFIX: Record<Resource | 'events', string> = {
  customers: 'cus',
  products: 'prod',
  prices: 'price',
  charges: 'ch',
  balance_transactions: 'txn',
  disputes: 'dp',
  events: 'evt',
};

const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth'];

/** What a restricted key may be denied: the API's paths under /v1/ the connector reads. */
export type StripeReadable = Resource | 'events' | 'balance' | 'account';

/** The permission Stripe names when a restricted key lacks it. */
export const PERMISSIONS: Record<StripeReadable, string> = {
  customers: 'rak_customer_read',
  products: 'rak_product_read',
  prices: 'rak_plan_read',
  charges: 'rak_charge_read',
  balance_transactions: 'rak_balance_transaction_source_read',
  disputes: 'rak_dispute_read',
  events: 'rak_event_read',
  balance: 'rak_balance_read',
  account: 'rak_account_read',
};

const ADDRESS_FIELDS = ['city', 'country', 'line1', 'line2', 'postal_code', 'state'] as const;

/** An address parameter as Stripe keeps it: every field present, unset ones null; `''` unsets the whole address. */
function addressOf(value: unknown): StripeObject | null {
  if (typeof value !== 'object' || value === null) return null;
  return Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, (value as StripeObject)[f] || null]));
}

/** The customer fields a create or update form sets (the contract check has vetted their names and types). */
function customerFields(params: StripeObject): StripeObject {
  const fields: StripeObject = {};
  for (const name of ['name', 'email', 'phone', 'description'] as const) if (name in params) fields[name] = params[name] || null;
  if ('address' in params) fields.address = addressOf(params.address);
  if ('shipping' in params)
    fields.shipping =
      typeof params.shipping === 'object'
        ? { name: params.shipping.name, phone: params.shipping.phone || null, address: addressOf(params.shipping.address) }
        : null;
  return fields;
}

export class StripeAccount {
  readonly keys = new Set<string>();
  /** What each restricted key may not read (none: every read). */
  private readonly denied = new Map<string, Set<StripeReadable>>();
  private readonly readOnly = new Set<string>();
  private readonly deleted = new Set<string>();
  readonly events: StripeObject[] = [];
  private readonly objects = new Map<Resource, Map<string, StripeObject>>(RESOURCES.map((r) => [r, new Map()]));
  /** Creation order, for objects created in the same second (Stripe orders those newest first too). */
  private readonly order = new Map<string, number>();
  private seq = 0;

  constructor(
    readonly id: string,
    readonly name: string,
    /** Stripe's clock, in seconds: the fake's, which a test may set apart from this machine's. */
    readonly now: () => number,
    readonly livemode = false,
  ) {}

  /**
   * A new restricted key of the account (`rk_test_…`), reading everything but what it is `without`, and writing
   * customers unless `readOnly`.
   */
  newKey(options: { without?: readonly StripeReadable[]; readOnly?: boolean } = {}): string {
    const key = `rk_${this.livemode ? 'live' : 'test'}_${randomBytes(12).toString('hex')}`;
    this.keys.add(key);
    this.restrictKey(key, options.without ?? []);
    if (options.readOnly) this.readOnly.add(key);
    return key;
  }

  /** The merchant edits a restricted key in the Dashboard: it may write customers, or only read. */
  setReadOnly(key: string, readOnly: boolean): void {
    if (readOnly) this.readOnly.add(key);
    else this.readOnly.delete(key);
  }

  /** Whether the key may only read (a write answers 403 naming `rak_customer_write`). */
  readOnlyKey(key: string): boolean {
    return this.readOnly.has(key);
  }

  /** The merchant edits a restricted key's permissions in the Dashboard: it reads everything but `without`. */
  restrictKey(key: string, without: readonly StripeReadable[]): void {
    this.denied.set(key, new Set(without));
  }

  /** The permission a key lacks to read `path` (`/v1/charges`), if it lacks one. */
  missingPermission(key: string, path: string): string | undefined {
    const resource = path.replace(/^\/v1\//, '').split('/')[0] as StripeReadable;
    return this.denied.get(key)?.has(resource) ? PERMISSIONS[resource] : undefined;
  }

  /** The merchant rolls every key: each stops working at once. */
  revokeKeys(): void {
    this.keys.clear();
  }

  account(): StripeObject {
    const account = fixture('account');
    account.id = this.id;
    account.email = `finance@${this.name.toLowerCase().replace(/\W+/g, '')}.example`;
    account.business_profile = { ...account.business_profile, name: this.name, url: 'https://shop.example', support_phone: '+14155550100' };
    account.default_currency = 'usd';
    account.capabilities = { card_payments: 'active', transfers: 'active', us_bank_account_ach_payments: 'inactive' };
    return account;
  }

  /** What reached the balance, per currency: every balance transaction's net. */
  balance(): StripeObject {
    const balance = fixture('balance');
    const net = new Map<string, number>();
    for (const t of this.all('balance_transactions')) net.set(t.currency, (net.get(t.currency) ?? 0) + t.net);
    const entries = [...(net.size ? net : new Map([['usd', 0]]))];
    balance.available = entries.map(([currency, amount]) => ({ amount, currency, source_types: { card: amount } }));
    balance.pending = entries.map(([currency]) => ({ amount: 0, currency, source_types: { card: 0 } }));
    balance.connect_reserved = entries.map(([currency]) => ({ amount: 0, currency }));
    balance.livemode = this.livemode;
    return balance;
  }

  get(resource: Resource, id: string): StripeObject | undefined {
    return this.objects.get(resource)!.get(id);
  }

  /** Every object of a list, newest first, as Stripe lists them. */
  all(resource: Resource): StripeObject[] {
    return [...this.objects.get(resource)!.values()].sort((a, b) => b.created - a.created || this.order.get(b.id)! - this.order.get(a.id)!);
  }

  private add(resource: Resource, object: StripeObject, created = this.now()): StripeObject {
    object.id = `${PREFIX[resource]}_${randomBytes(8).toString('hex')}`;
    object.created = created;
    object.livemode = this.livemode;
    this.order.set(object.id, this.seq++);
    this.objects.get(resource)!.set(object.id, object);
    return object;
  }

  private emit(type: string, object: StripeObject, previous?: StripeObject): void {
    const event = fixture('event');
    event.id = `${PREFIX.events}_${randomBytes(8).toString('hex')}`;
    event.created = this.now();
    event.type = type;
    event.livemode = this.livemode;
    event.api_version = '2023-08-16';
    event.data = { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) };
    this.order.set(event.id, this.seq++);
    this.events.push(event);
  }

  /** Events, newest first. */
  eventList(): StripeObject[] {
    return [...this.events].sort((a, b) => b.created - a.created || this.order.get(b.id)! - this.order.get(a.id)!);
  }

  createCustomer(fields: StripeObject = {}, created?: number): StripeObject {
    const i = this.objects.get('customers')!.size;
    const customer = fixture('customer');
    const name = NAMES[i % NAMES.length];
    Object.assign(customer, {
      name,
      email: `${name.toLowerCase().replace(/\W+/g, '.')}${i}@example.com`,
      phone: '+442079460000',
      address: { city: 'London', country: 'GB', line1: `${i + 1} Fleet Street`, line2: null, postal_code: 'EC4Y 1AA', state: null },
      ...fields,
    });
    this.add('customers', customer, created);
    this.emit('customer.created', customer);
    return customer;
  }

  updateCustomer(id: string, fields: StripeObject): StripeObject {
    const customer = this.get('customers', id);
    if (!customer) throw new Error(`no customer ${id}`);
    const previous = Object.fromEntries(Object.keys(fields).map((k) => [k, customer[k]]));
    Object.assign(customer, fields);
    this.emit('customer.updated', customer, previous);
    return customer;
  }

  /** `POST /v1/customers`: the fields the form gives (decoded, all strings), every other one unset. */
  createCustomerFromApi(params: StripeObject): StripeObject {
    const customer = fixture('customer');
    // A new customer has no currency until its first charge or subscription.
    Object.assign(customer, { name: null, email: null, phone: null, description: null, address: null, shipping: null, currency: null });
    Object.assign(customer, customerFields(params));
    this.add('customers', customer);
    this.emit('customer.created', customer);
    return customer;
  }

  /**
   * `POST /v1/customers/{id}`: the fields the form gives change (an empty one is unset); the others stay, within an
   * address too (the form's `address[line1]` changes that line alone; `address=` unsets the address).
   */
  updateCustomerFromApi(id: string, params: StripeObject): StripeObject {
    const customer = this.get('customers', id);
    const fields = customerFields(params);
    const merged = (old: StripeObject | null | undefined, given: unknown, now: StripeObject | null) =>
      typeof given === 'object' && given !== null && old
        ? { ...old, ...Object.fromEntries(Object.keys(given).map((k) => [k, now![k]])) }
        : now;
    if ('address' in fields) fields.address = merged(customer?.address, params.address, fields.address);
    if (fields.shipping && customer?.shipping)
      fields.shipping = {
        ...fields.shipping,
        address: merged(customer.shipping.address, params.shipping.address, fields.shipping.address),
      };
    return this.updateCustomer(id, fields);
  }

  /** Whether the customer was deleted (Stripe still answers its id, with `deleted: true`). */
  wasDeleted(id: string): boolean {
    return this.deleted.has(id);
  }

  deleteCustomer(id: string): void {
    const customer = this.get('customers', id);
    if (!customer) throw new Error(`no customer ${id}`);
    this.objects.get('customers')!.delete(id);
    this.deleted.add(id);
    this.emit('customer.deleted', customer);
  }

  createProduct(
    name: string,
    prices: { currency: string; unitAmount: number; interval?: 'month' | 'year' }[],
    created?: number,
  ): StripeObject {
    const product = fixture('product');
    Object.assign(product, { name, description: `${name}, made to last`, default_price: null, updated: created ?? this.now() });
    this.add('products', product, created);
    for (const p of prices) {
      const price = fixture('price');
      Object.assign(price, {
        product: product.id,
        currency: p.currency,
        unit_amount: p.unitAmount,
        unit_amount_decimal: String(p.unitAmount),
        type: p.interval ? 'recurring' : 'one_time',
        recurring: p.interval ? { aggregate_usage: null, interval: p.interval, interval_count: 1, usage_type: 'licensed' } : null,
      });
      this.add('prices', price, created);
      product.default_price ??= price.id;
    }
    return product;
  }

  /**
   * A card charge of `amount` cents: succeeded (with its balance transaction and a fee of 2.9% + 30¢) or failed
   * (nothing reaches the balance).
   */
  createCharge(
    amount: number,
    options: { customer?: string; currency?: string; status?: 'succeeded' | 'failed'; created?: number } = {},
  ): StripeObject {
    const status = options.status ?? 'succeeded';
    const charge = fixture('charge');
    Object.assign(charge, {
      amount,
      amount_captured: status === 'succeeded' ? amount : 0,
      captured: status === 'succeeded',
      paid: status === 'succeeded',
      currency: options.currency ?? 'usd',
      customer: options.customer ?? null,
      status,
      description: null,
      failure_code: status === 'failed' ? 'card_declined' : null,
      failure_message: status === 'failed' ? 'Your card was declined.' : null,
      balance_transaction: null,
      billing_details: { ...charge.billing_details, address: { ...charge.billing_details.address, country: 'GB' } },
    });
    this.add('charges', charge, options.created);
    charge.refunds = { ...charge.refunds, url: `/v1/charges/${charge.id}/refunds` };
    if (status === 'succeeded') {
      const fee = Math.round(amount * 0.029) + 30;
      const txn = this.balanceTransaction('charge', amount, fee, charge.id, charge.currency, charge.created);
      charge.balance_transaction = txn.id;
    }
    this.emit(status === 'succeeded' ? 'charge.succeeded' : 'charge.failed', charge);
    return charge;
  }

  /** A card payment authorised but not captured: a succeeded charge with `captured: false`, nothing in the balance yet. */
  authorize(amount: number, options: { customer?: string; created?: number } = {}): StripeObject {
    const charge = fixture('charge');
    Object.assign(charge, {
      amount,
      amount_captured: 0,
      amount_refunded: 0,
      captured: false,
      refunded: false,
      paid: true,
      currency: 'usd',
      customer: options.customer ?? null,
      status: 'succeeded',
      description: null,
      failure_code: null,
      failure_message: null,
      balance_transaction: null,
      billing_details: { ...charge.billing_details, address: { ...charge.billing_details.address, country: 'GB' } },
    });
    this.add('charges', charge, options.created);
    charge.refunds = { ...charge.refunds, url: `/v1/charges/${charge.id}/refunds` };
    this.emit('charge.succeeded', charge);
    return charge;
  }

  /** An authorisation not captured within its 7 days: Stripe releases it, refunding it whole, and says `charge.expired`. */
  expireAuthorization(chargeId: string): StripeObject {
    const charge = this.get('charges', chargeId);
    if (!charge || charge.captured !== false) throw new Error(`no uncaptured charge ${chargeId}`);
    const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
    charge.amount_refunded = charge.amount;
    charge.refunded = true;
    this.emit('charge.expired', charge, previous);
    return charge;
  }

  /** Refunds part or all of a charge: the charge says so, and a negative balance transaction records it. */
  refund(chargeId: string, amount?: number): StripeObject {
    const charge = this.get('charges', chargeId);
    if (!charge) throw new Error(`no charge ${chargeId}`);
    const refunded = amount ?? charge.amount - charge.amount_refunded;
    const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
    charge.amount_refunded += refunded;
    charge.refunded = charge.amount_refunded >= charge.amount;
    this.balanceTransaction('refund', -refunded, 0, `re_${randomBytes(8).toString('hex')}`, charge.currency);
    this.emit('charge.refunded', charge, previous);
    return charge;
  }

  /** A customer disputes a charge: the dispute, its event, and the amount withdrawn from the balance. */
  dispute(chargeId: string): StripeObject {
    const charge = this.get('charges', chargeId);
    if (!charge) throw new Error(`no charge ${chargeId}`);
    const dispute = fixture('dispute');
    Object.assign(dispute, {
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      status: 'needs_response',
      reason: 'fraudulent',
      evidence_details: { ...dispute.evidence_details, due_by: this.now() + 7 * 86_400 },
    });
    this.add('disputes', dispute);
    charge.disputed = true;
    this.balanceTransaction('adjustment', -charge.amount, 1500, dispute.id, charge.currency);
    this.emit('charge.dispute.created', dispute);
    return dispute;
  }

  /** The dispute's outcome (`won`, `lost`…), as Stripe reports it. */
  closeDispute(id: string, status: 'won' | 'lost'): void {
    const dispute = this.get('disputes', id);
    if (!dispute) throw new Error(`no dispute ${id}`);
    const previous = { status: dispute.status };
    dispute.status = status;
    this.emit('charge.dispute.closed', dispute, previous);
  }

  payout(amount: number): StripeObject {
    return this.balanceTransaction('payout', -amount, 0, `po_${randomBytes(8).toString('hex')}`, 'usd');
  }

  private balanceTransaction(type: string, amount: number, fee: number, source: string, currency: string, created?: number): StripeObject {
    const txn = fixture('balance_transaction');
    Object.assign(txn, {
      amount,
      fee,
      net: amount - fee,
      currency,
      source,
      type,
      reporting_category: type,
      description: null,
      fee_details: fee ? [{ amount: fee, application: null, currency, description: 'Stripe processing fees', type: 'stripe_fee' }] : [],
    });
    this.add('balance_transactions', txn, created);
    txn.available_on = txn.created + 2 * 86_400;
    return txn;
  }

  /**
   * A shop a year old: customers, a catalogue, and `charges` sales among them (every 25th declined, every 10th
   * partly refunded), each a minute apart and at least a day old.
   */
  seed(counts: { customers: number; products: number; charges: number }): void {
    const start = this.now() - 86_400 - (counts.customers + counts.products + counts.charges) * 60;
    let at = start;
    const customers = Array.from({ length: counts.customers }, () => this.createCustomer({}, (at += 60)));
    for (let p = 0; p < counts.products; p++) {
      this.createProduct(
        `Product ${p + 1}`,
        p % 3 === 0
          ? [{ currency: 'usd', unitAmount: 1500 + p, interval: 'month' }]
          : [
              { currency: 'usd', unitAmount: 2000 + p * 10 },
              { currency: 'eur', unitAmount: 1900 + p * 10 },
            ],
        (at += 60),
      );
    }
    for (let c = 0; c < counts.charges; c++) {
      const charge = this.createCharge(1000 + ((c * 37) % 9000), {
        customer: customers.length ? customers[c % customers.length].id : undefined,
        status: c % 25 === 24 ? 'failed' : 'succeeded',
        created: (at += 60),
      });
      if (c % 10 === 5) this.refund(charge.id, 500);
    }
    // Seeding is history: its events are older than any sync.
    this.events.length = 0;
  }
}
