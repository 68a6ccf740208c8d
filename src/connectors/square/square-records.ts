import { defined, str, type Data } from '../source-kit.js';
import { squareInstant, type SquareObject } from './square-api.js';

/*
 * Square's objects in Codat's commerce shapes, field by field as docs/connectors/square.md tables them. Each
 * mapping takes one object as the Connect API (v2) answers it (snake_case, money as `{ amount, currency }` in the
 * currency's smallest unit, timestamps in UTC) and returns Codat's fields; `id` and `sourceModifiedDate` are added
 * by the reader. Codat's commerce dates are local to the shop, so Square's UTC instants are shown in the time zone
 * of the location they happened at.
 */

/** What the mappings know about the seller's locations: name, country and time zone by location id. */
export type Locations = ReadonlyMap<string, { name?: string; country?: string; timezone?: string }>;

const nonEmpty = <T>(list: T[]): T[] | undefined => (list.length > 0 ? list : undefined);
const list = (value: unknown): SquareObject[] => (Array.isArray(value) ? (value as SquareObject[]) : []);

/** Digits after the point of a currency (JPY 0, USD 2, KWD 3), by ISO 4217 as the runtime knows it. */
function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** A Money (`{ amount: 1050, currency: "USD" }`) in major units (10.5); undefined without an amount. */
export function amountOf(money: unknown): number | undefined {
  const m = money as SquareObject | undefined;
  if (typeof m?.amount !== 'number') return undefined;
  const digits = minorDigits(String(m.currency ?? 'USD'));
  return Number((m.amount / 10 ** digits).toFixed(digits));
}

/** An amount given back, as Codat counts it: never positive (0 stays 0, not -0). */
const negative = (amount: number | undefined) => (amount === undefined || amount === 0 ? amount : -Math.abs(amount));

const currencyOf = (money: unknown): string | undefined => str((money as SquareObject | undefined)?.currency);

/** An instant as Codat's local date-time (`2024-05-01T12:30:00`) in the location's time zone (UTC when unknown). */
export function localDateTime(instant: unknown, timeZone?: string): string | undefined {
  const utc = squareInstant(instant);
  if (!utc) return undefined;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: timeZone || 'UTC',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(utc));
  } catch {
    return utc.slice(0, 19);
  }
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}`;
}

/** Square's Address as Codat's, of the given type. */
function address(a: unknown, type: string): Data | undefined {
  const x = a as SquareObject | undefined;
  if (!x) return undefined;
  const line2 = [x.address_line_2, x.address_line_3].filter((l) => str(l)).join(', ');
  const mapped = defined({
    line1: str(x.address_line_1),
    line2: str(line2),
    city: str(x.locality),
    region: str(x.administrative_district_level_1),
    country: str(x.country),
    postalCode: str(x.postal_code),
  });
  return Object.keys(mapped).length > 0 ? { type, ...mapped } : undefined;
}

/** Location → `commerce-locations`. */
export function locationRecord(x: SquareObject): Data {
  return defined({ name: str(x.name), address: address(x.address, 'Unknown') });
}

/** The merchant (and its main location, for the address and phone Square keeps there) → `commerce-companyInfo`. */
export function companyRecord(merchant: SquareObject, main: SquareObject | undefined): Data {
  const website = str(main?.website_url);
  return defined({
    companyName: str(merchant.business_name) ?? str(main?.business_name),
    commercePlatformRef: str(merchant.id),
    baseCurrency: str(merchant.currency),
    addresses: main?.address ? nonEmpty([address(main.address, 'Billing')].filter((a): a is Data => a !== undefined)) : undefined,
    phoneNumbers: str(main?.phone_number) ? [{ number: main!.phone_number, type: 'Primary' }] : undefined,
    webLinks: website && /^https?:\/\//.test(website) ? [{ type: 'Website', url: website }] : undefined,
    createdDate: localDateTime(merchant.created_at, main?.timezone),
  });
}

/** Customer → `commerce-customers`: the person's name, else the company's, else the nickname. */
export function customerRecord(x: SquareObject): Data {
  const person = [x.given_name, x.family_name].filter((n) => str(n)).join(' ');
  return defined({
    customerName: str(person) ?? str(x.company_name) ?? str(x.nickname),
    emailAddress: str(x.email_address),
    phone: str(x.phone_number),
    addresses: x.address ? nonEmpty([address(x.address, 'Billing')].filter((a): a is Data => a !== undefined)) : undefined,
    note: str(x.note),
    createdDate: localDateTime(x.created_at),
  });
}

/** Square's payment status as Codat's. */
export function paymentStatus(status: unknown): string {
  const statuses: Record<string, string> = {
    APPROVED: 'Authorized',
    PENDING: 'Pending',
    COMPLETED: 'Paid',
    CANCELED: 'Cancelled',
    FAILED: 'Failed',
  };
  return statuses[String(status)] ?? 'Unknown';
}

/** A tender's card status as Codat's payment status (a cash or other tender is paid when the order has it). */
function tenderStatus(tender: SquareObject): string {
  const card: Record<string, string> = { AUTHORIZED: 'Authorized', CAPTURED: 'Paid', VOIDED: 'Cancelled', FAILED: 'Failed' };
  const status = tender.card_details?.status;
  return status ? (card[String(status)] ?? 'Unknown') : 'Paid';
}

/** Square's tender types as Codat's payment types. */
function tenderType(type: unknown): string {
  const types: Record<string, string> = {
    CARD: 'Card',
    CASH: 'Cash',
    SQUARE_GIFT_CARD: 'Prepaid',
    WALLET: 'Mobile',
    BUY_NOW_PAY_LATER: 'Custom',
    SQUARE_ACCOUNT: 'StoreCredit',
    OTHER: 'Custom',
  };
  return types[String(type)] ?? 'Unknown';
}

/** Order → `commerce-orders`. */
export function orderRecord(x: SquareObject, locations: Locations): Data {
  const location = locations.get(String(x.location_id));
  const tz = location?.timezone;
  const taxes = new Map(list(x.taxes).map((t) => [String(t.uid), t]));
  const discounts = new Map(list(x.discounts).map((d) => [String(d.uid), d]));
  const lines = list(x.line_items).map((line) => {
    const applied = list(line.applied_taxes);
    const percentage = applied.reduce((sum, a) => sum + (Number(taxes.get(String(a.tax_uid))?.percentage) || 0), 0);
    return defined({
      id: String(line.uid ?? ''),
      quantity: Number(line.quantity),
      unitPrice: amountOf(line.base_price_money),
      totalAmount: amountOf(line.total_money),
      totalTaxAmount: amountOf(line.total_tax_money),
      taxPercentage: applied.length > 0 ? percentage : undefined,
      taxes: applied.map((a) => {
        const tax = taxes.get(String(a.tax_uid));
        // The OAS describes `rate` as the tax amount on the line from the source platform.
        return defined({
          taxComponentRef: { id: String(tax?.catalog_object_id ?? a.tax_uid), name: String(tax?.name ?? '') },
          rate: amountOf(a.applied_money) ?? null,
        });
      }),
      productVariantRef: str(line.catalog_object_id) ? defined({ id: line.catalog_object_id, name: str(line.variation_name) }) : undefined,
      discountAllocations: list(line.applied_discounts).map((a) =>
        defined({ name: str(discounts.get(String(a.discount_uid))?.name), totalAmount: amountOf(a.applied_money) }),
      ),
    });
  });
  const refunded = list(x.refunds).reduce((sum, r) => sum + (amountOf(r.amount_money) ?? 0), 0);
  return defined({
    orderNumber: str(x.reference_id) ?? str(x.ticket_name),
    country: location?.country,
    currency: currencyOf(x.total_money),
    createdDate: localDateTime(x.created_at, tz),
    closedDate: localDateTime(x.closed_at, tz),
    totalAmount: amountOf(x.total_money),
    totalTaxAmount: amountOf(x.total_tax_money),
    totalDiscount: amountOf(x.total_discount_money),
    totalGratuity: amountOf(x.total_tip_money),
    // Money given back, negative as Codat's Commerce spec has it (and the sandbox writes).
    totalRefund: negative(x.refunds ? Number(refunded.toFixed(3)) : amountOf(x.return_amounts?.total_money)),
    orderLineItems: lines,
    payments: list(x.tenders).map((t) =>
      defined({
        id: String(t.payment_id ?? t.id),
        amount: amountOf(t.amount_money) ?? null,
        currency: currencyOf(t.amount_money),
        type: tenderType(t.type),
        status: tenderStatus(t),
        paymentProvider: 'Square',
        createdDate: localDateTime(t.created_at, tz),
      }),
    ),
    serviceCharges: list(x.service_charges).map((c) =>
      defined({
        description: str(c.name),
        totalAmount: amountOf(c.total_money),
        taxAmount: amountOf(c.total_tax_money),
        quantity: 1,
        type: 'Generic',
      }),
    ),
    locationRef: str(x.location_id) ? defined({ id: x.location_id, name: location?.name }) : undefined,
    customerRef: str(x.customer_id) ? { id: x.customer_id } : undefined,
  });
}

/** Payment → `commerce-payments`: the amount with the tip (what the buyer paid), its source as the method. */
export function paymentRecord(x: SquareObject, locations: Locations): Data {
  const tz = locations.get(String(x.location_id))?.timezone;
  const source = str(x.source_type);
  const brand = str(x.card_details?.card?.card_brand);
  return defined({
    amount: amountOf(x.total_money ?? x.amount_money),
    currency: currencyOf(x.total_money ?? x.amount_money),
    paymentMethodRef: source ? defined({ id: source, name: brand }) : undefined,
    status: paymentStatus(x.status),
    paymentProvider: 'Square',
    createdDate: localDateTime(x.created_at, tz),
  });
}

/** One Codat transaction: its id and fields (`transactions` of a payment or a refund). */
export interface TransactionData {
  id: string;
  data: Data;
}

/**
 * A completed payment → a `Payment` transaction, and its processing fees (Square's charge for taking it) → one
 * `PaymentFee` transaction, negative: money in, then money taken out of it.
 */
export function paymentTransactions(x: SquareObject, locations: Locations): TransactionData[] {
  const tz = locations.get(String(x.location_id))?.timezone;
  const created = localDateTime(x.created_at, tz);
  const source = str(x.order_id) ? { id: x.order_id, type: 'Order' } : { id: String(x.id), type: 'Payment' };
  const payment = {
    id: String(x.id),
    data: defined({
      totalAmount: amountOf(x.total_money ?? x.amount_money),
      currency: currencyOf(x.total_money ?? x.amount_money),
      type: 'Payment',
      subType: str(x.source_type),
      transactionSourceRef: source,
      createdDate: created,
      sourceCreatedDate: created,
    }),
  };
  const fees = list(x.processing_fee);
  if (fees.length === 0) return [payment];
  const total = fees.reduce((sum, f) => sum + (amountOf(f.amount_money) ?? 0), 0);
  const fee = {
    id: `${x.id}-fee`,
    data: defined({
      totalAmount: -Number(total.toFixed(3)),
      currency: currencyOf(fees[0].amount_money),
      type: 'PaymentFee',
      subType: str(fees[0].type),
      transactionSourceRef: { id: String(x.id), type: 'Payment' },
      createdDate: created,
      sourceCreatedDate: created,
    }),
  };
  return [payment, fee];
}

/**
 * A completed refund → a `Refund` transaction, negative, naming the payment it gives back; and its processing fees
 * (`processing_fee[]`: Square's fee adjustments on the refund, negative when Square gives part of the payment's fee
 * back) → one transaction `<id>-fee` of − Σ amounts, a `PaymentFeeRefund` when money comes back to the seller, else a
 * `PaymentFee`. With the payments' own fee transactions, the transactions add up to what reached the seller.
 */
export function refundTransactions(x: SquareObject, locations: Locations): TransactionData[] {
  const created = localDateTime(x.created_at, locations.get(String(x.location_id))?.timezone);
  const amount = amountOf(x.amount_money);
  const refund: TransactionData = {
    id: String(x.id),
    data: defined({
      totalAmount: amount === undefined ? undefined : -amount,
      currency: currencyOf(x.amount_money),
      type: 'Refund',
      subType: str(x.destination_type),
      transactionSourceRef: str(x.payment_id) ? { id: x.payment_id, type: 'Payment' } : undefined,
      createdDate: created,
      sourceCreatedDate: created,
    }),
  };
  const fees = list(x.processing_fee);
  const total = Number(fees.reduce((sum, f) => sum + (amountOf(f.amount_money) ?? 0), 0).toFixed(3));
  if (fees.length === 0 || total === 0) return [refund];
  const fee: TransactionData = {
    id: `${x.id}-fee`,
    data: defined({
      totalAmount: -total,
      currency: currencyOf(fees[0].amount_money),
      type: total < 0 ? 'PaymentFeeRefund' : 'PaymentFee',
      subType: str(fees[0].type),
      transactionSourceRef: str(x.payment_id) ? { id: x.payment_id, type: 'Payment' } : { id: String(x.id), type: 'Payment' },
      createdDate: created,
      sourceCreatedDate: created,
    }),
  };
  return [refund, fee];
}

/** Catalog ITEM → `commerce-products`, its variations as variants. */
export function productRecord(x: SquareObject): Data {
  const item: SquareObject = x.item_data ?? {};
  const categories = list(item.categories).map((c) => String(c.id));
  return defined({
    name: str(item.name),
    description: str(item.description_plaintext) ?? str(item.description),
    categorization: categories.length > 0 ? categories.join(', ') : str(item.category_id),
    isGiftCard: item.product_type === 'GIFT_CARD' ? true : false,
    variants: list(item.variations).map((v) => {
      const d: SquareObject = v.item_variation_data ?? {};
      const price = d.pricing_type === 'VARIABLE_PRICING' ? undefined : d.price_money;
      return defined({
        id: String(v.id),
        name: str(d.name),
        sku: str(d.sku),
        barcode: str(d.upc),
        isTaxEnabled: typeof item.is_taxable === 'boolean' ? item.is_taxable : undefined,
        prices: price ? [defined({ currency: currencyOf(price) ?? null, unitPrice: amountOf(price) })] : undefined,
        status: item.is_archived === true || d.sellable === false ? 'Unpublished' : 'Published',
      });
    }),
  });
}

/** Catalog CATEGORY → `commerce-productCategories`: its ancestors from the parent chain Square keeps. */
export function categoryRecord(x: SquareObject): Data {
  const c: SquareObject = x.category_data ?? {};
  const path = list(c.path_to_root).map((n) => String(n.category_id ?? ''));
  const ancestors = path.length > 0 ? path : str(c.parent_category?.id) ? [String(c.parent_category.id)] : [];
  return defined({
    name: str(c.name),
    ancestorRefs: ancestors.filter((id) => id !== '').map((id) => ({ id, type: 'ProductCategory' })),
  });
}
