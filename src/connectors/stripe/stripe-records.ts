import { defined, type Data } from '../source-kit.js';
import { stripeLocal, type StripeObject, type StripeSettings } from './stripe-api.js';

/** Stripe's objects in Codat's commerce shapes (docs/connectors/stripe.md has the mapping, field by field). */

/** Currencies Stripe counts in whole units (`amount: 500` is ¥500) and in thousandths (Bahraini dinar). */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/** An amount in the currency's smallest unit (cents) as Codat's decimal amount. */
export function major(amount: unknown, currency: unknown): number | undefined {
  if (typeof amount !== 'number') return undefined;
  const code = String(currency ?? '').toLowerCase();
  const scale = ZERO_DECIMAL.has(code) ? 1 : THREE_DECIMAL.has(code) ? 1000 : 100;
  return Math.round((amount / scale) * 1000) / 1000;
}

/** An amount given back, as Codat counts it: negative (0 stays 0, not -0). */
const negative = (amount: number | undefined) => (amount === undefined || amount === 0 ? amount : -Math.abs(amount));

const upper = (currency: unknown) => (typeof currency === 'string' ? currency.toUpperCase() : undefined);

/** The id of an expandable field: Stripe sends the id, or the object when expanded. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as StripeObject).id === 'string') return (value as StripeObject).id;
  return undefined;
}

function address(a: StripeObject | null | undefined, type: 'Billing' | 'Delivery'): Data | undefined {
  if (!a) return undefined;
  const parts = defined({
    line1: a.line1 ?? undefined,
    line2: a.line2 ?? undefined,
    city: a.city ?? undefined,
    region: a.state ?? undefined,
    country: a.country ?? undefined,
    postalCode: a.postal_code ?? undefined,
  });
  return Object.keys(parts).length > 0 ? { type, ...parts } : undefined;
}

export function customerRecord(c: StripeObject): Data {
  const addresses = [address(c.address, 'Billing'), address(c.shipping?.address, 'Delivery')].filter(Boolean);
  return defined({
    customerName: c.name ?? c.shipping?.name ?? undefined,
    emailAddress: c.email ?? undefined,
    phone: c.phone ?? null,
    defaultCurrency: upper(c.currency),
    addresses,
    note: c.description ?? undefined,
    createdDate: stripeLocal(c.created),
  });
}

/**
 * A charge's status as a payment's: captured is Paid, authorised only is Authorized. An authorisation released
 * uncaptured (it expired after its 7 days, or was cancelled) stays `succeeded` with `captured: false`, and Stripe
 * refunds it whole (`refunded: true`): Cancelled.
 */
export function chargeStatus(c: StripeObject): 'Pending' | 'Authorized' | 'Paid' | 'Failed' | 'Cancelled' | 'Unknown' {
  if (c.status === 'failed') return 'Failed';
  if (c.status === 'pending') return 'Pending';
  if (c.status === 'succeeded') return c.captured === false ? (c.refunded === true ? 'Cancelled' : 'Authorized') : 'Paid';
  return 'Unknown';
}

/** Stripe's payment method types as Codat's payment types. */
function paymentType(type: unknown): string {
  switch (type) {
    case 'card':
      return 'OnlineCard';
    case 'card_present':
    case 'interac_present':
      return 'Card';
    case 'paypal':
      return 'Paypal';
    case 'customer_balance':
      return 'StoreCredit';
    case undefined:
    case null:
      return 'Unknown';
    default:
      return 'Custom';
  }
}

const methodOf = (c: StripeObject): string | undefined => c.payment_method_details?.type ?? undefined;

export function paymentRecord(c: StripeObject): Data {
  const method = methodOf(c);
  return defined({
    amount: major(c.amount, c.currency),
    currency: upper(c.currency),
    paymentMethodRef: method ? { id: method, name: methodName(method) } : undefined,
    status: chargeStatus(c),
    paymentProvider: 'Stripe',
    createdDate: stripeLocal(c.created),
  });
}

/**
 * A charge as a sale: Stripe's one object every way of taking money makes (Checkout, Invoicing, Payment Links,
 * Terminal, the API). A failed charge sold nothing and is no order (see `isSale`).
 */
export function orderRecord(c: StripeObject): Data {
  const method = methodOf(c);
  const createdDate = stripeLocal(c.created);
  const customer = idOf(c.customer);
  return defined({
    orderNumber: c.receipt_number ?? undefined,
    country: c.billing_details?.address?.country ?? c.payment_method_details?.card?.country ?? undefined,
    currency: upper(c.currency),
    createdDate,
    closedDate: chargeStatus(c) === 'Paid' ? createdDate : undefined,
    totalAmount: major(c.amount, c.currency),
    // Codat's totalRefund is money given back, so never positive (as the sandbox's).
    totalRefund: negative(major(c.amount_refunded, c.currency)),
    payments: [
      defined({
        id: c.id,
        amount: major(c.amount, c.currency),
        currency: upper(c.currency),
        type: paymentType(method),
        status: chargeStatus(c),
        paymentProvider: 'Stripe',
        createdDate,
      }),
    ],
    customerRef: customer ? defined({ id: customer, name: c.billing_details?.name ?? undefined }) : undefined,
  });
}

export const isSale = (c: StripeObject) => c.status !== 'failed';

/** Balance transaction types (Stripe's `type`) as Codat's transaction types; the rest are Unknown, with Stripe's type. */
const TRANSACTION_TYPES: Record<string, string> = {
  charge: 'Payment',
  payment: 'Payment',
  refund: 'Refund',
  payment_refund: 'Refund',
  payment_failure_refund: 'Refund',
  payout: 'Payout',
  payout_cancel: 'FailedPayout',
  payout_failure: 'FailedPayout',
  transfer: 'Transfer',
  transfer_cancel: 'Transfer',
  transfer_failure: 'Transfer',
  transfer_refund: 'Transfer',
  stripe_fee: 'PaymentFee',
  application_fee: 'PaymentFee',
  tax_fee: 'PaymentFee',
  application_fee_refund: 'PaymentFeeRefund',
};

/** What a balance transaction's source is, as Codat names it. */
function sourceType(type: string): 'Fee' | 'Payment' | 'Unknown' {
  const codat = TRANSACTION_TYPES[type];
  if (codat === 'Payment' || codat === 'Refund') return 'Payment';
  if (codat === 'PaymentFee' || codat === 'PaymentFeeRefund') return 'Fee';
  return 'Unknown';
}

/**
 * A balance transaction, gross; its Stripe fee (when it has one) as a second record `<id>-fee`, a PaymentFee (or a
 * PaymentFeeRefund when Stripe gives a fee back), so the transactions add up to what reached the balance.
 */
export function transactionRecords(t: StripeObject): { id: string; data: Data }[] {
  const type = String(t.type ?? '');
  const source = idOf(t.source);
  const createdDate = stripeLocal(t.created);
  const out = [
    {
      id: String(t.id),
      data: defined({
        totalAmount: major(t.amount, t.currency),
        currency: upper(t.currency),
        type: TRANSACTION_TYPES[type] ?? 'Unknown',
        subType: type || undefined,
        transactionSourceRef: source ? { id: source, type: sourceType(type) } : undefined,
        createdDate,
        sourceCreatedDate: createdDate,
      }),
    },
  ];
  if (typeof t.fee === 'number' && t.fee !== 0 && TRANSACTION_TYPES[type] !== 'PaymentFee') {
    out.push({
      id: `${t.id}-fee`,
      data: defined({
        totalAmount: major(-t.fee, t.currency),
        currency: upper(t.currency),
        type: t.fee > 0 ? 'PaymentFee' : 'PaymentFeeRefund',
        subType: 'stripe_fee',
        transactionSourceRef: source ? { id: source, type: 'Fee' } : undefined,
        createdDate,
        sourceCreatedDate: createdDate,
      }),
    });
  }
  return out;
}

const DISPUTE_STATUSES: Record<string, string> = {
  won: 'Won',
  lost: 'Lost',
  needs_response: 'EvidenceRequired',
  under_review: 'Processing',
  warning_needs_response: 'InquiryEvidenceRequired',
  warning_under_review: 'InquiryProcessing',
  warning_closed: 'InquiryClosed',
  charge_refunded: 'ChargeRefunded',
};

export function disputeRecord(d: StripeObject): Data {
  const charge = idOf(d.charge);
  return defined({
    disputedTransactions: charge ? [{ id: charge, type: 'Payment' }] : [],
    totalAmount: major(d.amount, d.currency),
    currency: upper(d.currency) ?? '',
    status: DISPUTE_STATUSES[String(d.status)] ?? 'Unknown',
    reason: d.reason ?? undefined,
    dueDate: stripeLocal(d.evidence_details?.due_by),
    createdDate: stripeLocal(d.created),
  });
}

/** A product with its prices as variants: one variant a price (a currency, an amount, maybe an interval). */
export function productRecord(p: StripeObject, prices: readonly StripeObject[]): Data {
  return defined({
    name: p.name ?? undefined,
    description: p.description ?? undefined,
    isGiftCard: false,
    variants: prices.map((price) =>
      defined({
        id: String(price.id),
        name: price.nickname ?? p.name ?? undefined,
        isTaxEnabled: price.tax_behavior === 'inclusive' || price.tax_behavior === 'exclusive' ? true : undefined,
        unitOfMeasure: price.recurring?.interval
          ? `per ${price.recurring.interval_count > 1 ? `${price.recurring.interval_count} ` : ''}${price.recurring.interval}`
          : (p.unit_label ?? undefined),
        prices: [defined({ currency: upper(price.currency) ?? null, unitPrice: major(price.unit_amount, price.currency) })],
        shippingRequired: typeof p.shippable === 'boolean' ? p.shippable : undefined,
        status: p.active && price.active ? 'Published' : 'Unpublished',
        createdDate: stripeLocal(price.created),
      }),
    ),
  });
}

/** The account and its balance, per currency. */
export function companyRecord(account: StripeObject, balance: StripeObject | undefined): Data {
  const profile = account.business_profile ?? {};
  const byCurrency = new Map<string, { available: number; pending: number; reserved: number }>();
  const add = (list: unknown, field: 'available' | 'pending' | 'reserved') => {
    for (const entry of Array.isArray(list) ? (list as StripeObject[]) : []) {
      const code = String(entry.currency);
      const sums = byCurrency.get(code) ?? { available: 0, pending: 0, reserved: 0 };
      sums[field] += major(entry.amount, code) ?? 0;
      byCurrency.set(code, sums);
    }
  };
  add(balance?.available, 'available');
  add(balance?.pending, 'pending');
  add(balance?.connect_reserved, 'reserved');
  const address_ = address(account.company?.address ?? profile.support_address, 'Billing');
  return defined({
    companyName: profile.name ?? account.settings?.dashboard?.display_name ?? account.email ?? undefined,
    commercePlatformRef: account.id,
    companyLegalName: account.company?.name ?? undefined,
    addresses: address_ ? [address_] : [],
    phoneNumbers: profile.support_phone ? [{ number: profile.support_phone, type: 'Primary' }] : [],
    webLinks: profile.url ? [{ type: 'Website', url: profile.url }] : [],
    baseCurrency: upper(account.default_currency),
    accountBalances: [...byCurrency].map(([currency, sums]) => ({ currency: currency.toUpperCase(), ...sums })),
    sourceUrls: { dashboard: `https://dashboard.stripe.com/${encodeURIComponent(account.id)}` },
    createdDate: stripeLocal(account.created),
  });
}

/** A payment method type's name (`us_bank_account` → `Us bank account`); Stripe's own names read well enough. */
export function methodName(type: string): string {
  const words = type.replace(/_payments$/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The account's payment capabilities (`card_payments`, `sepa_debit_payments`…) as payment methods. */
export function paymentMethodRecords(account: StripeObject): { id: string; data: Data }[] {
  return Object.entries((account.capabilities ?? {}) as Record<string, string>)
    .filter(([name]) => name.endsWith('_payments'))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, status]) => ({
      id: name,
      data: { name: methodName(name), status: status === 'active' ? 'Active' : status === 'inactive' ? 'Archived' : 'Unknown' },
    }));
}

/** The settings a link keeps from the account it was checked against. */
export function settingsOf(account: StripeObject, livemode: boolean): StripeSettings {
  const name = account.business_profile?.name ?? account.settings?.dashboard?.display_name ?? account.email;
  return { accountId: String(account.id), ...(name ? { accountName: String(name) } : {}), livemode };
}
