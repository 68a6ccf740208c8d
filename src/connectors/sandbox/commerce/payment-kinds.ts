/** How the shop's customers pay: the payment methods and what each means for processing and settlement. */

export type PaymentType =
  'Cash' | 'Card' | 'Invoice' | 'OnlineCard' | 'Swish' | 'Vipps' | 'Mobile' | 'StoreCredit' | 'Paypal' | 'Custom' | 'Prepaid' | 'Unknown';

export interface PaymentMethodDef {
  name: string;
  type: PaymentType;
  /** Payment service provider, if any. */
  provider?: string;
  /** Settled through the shop's card processor: its payments, fees and refunds are commerce transactions. */
  processed: boolean;
  /**
   * Not through the card processor, but paid into the shop's bank by the period's end: cash (banked), PayPal and Klarna
   * (their own payouts). The books record these takings beside the card payouts (payouts.ts).
   */
  banked?: boolean;
  archived?: boolean;
  /** Share of in-store and of online payments. */
  store: number;
  online: number;
}

export const PAYMENT_METHODS: readonly PaymentMethodDef[] = [
  { name: 'Card (in person)', type: 'Card', provider: 'Stripe Terminal', processed: true, store: 66, online: 0 },
  { name: 'Card (online)', type: 'OnlineCard', provider: 'Stripe', processed: true, store: 0, online: 58 },
  { name: 'Cash', type: 'Cash', processed: false, banked: true, store: 18, online: 0 },
  { name: 'PayPal', type: 'Paypal', provider: 'PayPal', processed: false, banked: true, store: 0, online: 20 },
  { name: 'Apple Pay', type: 'Mobile', provider: 'Stripe', processed: true, store: 9, online: 9 },
  { name: 'Google Pay', type: 'Mobile', provider: 'Stripe', processed: true, store: 4, online: 3 },
  { name: 'Gift card', type: 'Prepaid', processed: false, store: 3, online: 1 },
  { name: 'Klarna', type: 'Custom', provider: 'Klarna', processed: false, banked: true, store: 0, online: 7 },
  { name: 'Bank transfer', type: 'Invoice', processed: false, store: 0, online: 2 },
  { name: 'Store credit', type: 'StoreCredit', processed: false, store: 0, online: 0 },
  { name: 'Cheque', type: 'Custom', processed: false, archived: true, store: 0, online: 0 },
];

export const METHOD = { card: 0, onlineCard: 1, cash: 2, giftCard: 6, bankTransfer: 8, storeCredit: 9 } as const;

const TENDERS = ['Voucher', 'Loyalty points', 'Marketplace payout', 'Layaway', 'Crypto (via processor)'];

/** Payment method `i` beyond the base list: a custom tender a later epoch adds (not yet used by orders). */
export function paymentMethodDef(i: number): PaymentMethodDef {
  if (i < PAYMENT_METHODS.length) return PAYMENT_METHODS[i];
  const n = i - PAYMENT_METHODS.length;
  const round = Math.floor(n / TENDERS.length);
  const name = TENDERS[n % TENDERS.length];
  return { name: round ? `${name} ${round + 1}` : name, type: 'Custom', processed: false, store: 0, online: 0 };
}

function cumulative(pick: (m: PaymentMethodDef) => number): Float64Array {
  const cum = new Float64Array(PAYMENT_METHODS.length);
  let total = 0;
  PAYMENT_METHODS.forEach((m, i) => (cum[i] = total += pick(m)));
  return cum;
}

export const STORE_CUM = cumulative((m) => m.store);
export const ONLINE_CUM = cumulative((m) => m.online);

/** Index of the method a uniform `u` picks from cumulative weights. */
export function pickMethod(cum: Float64Array, u: number): number {
  const x = u * cum[cum.length - 1];
  let i = 0;
  while (i < cum.length - 1 && x >= cum[i]) i++;
  return i;
}

/** Card processing fee in cents: 1.5% + 20 (GBP/EUR cards) or 2.9% + 30 (USD), on a payment of `cents`. */
export function processingFee(currency: number, cents: number): number {
  return currency === 1 ? Math.round(cents * 0.029) + 30 : Math.round(cents * 0.015) + 20;
}
