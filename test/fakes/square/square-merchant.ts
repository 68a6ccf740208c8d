import { randomBytes } from 'node:crypto';

/**
 * One Square seller as the fake keeps it: the merchant, its locations, orders, payments, refunds, customers and
 * catalog, in the shapes Square's Connect API answers (checked against Square's contract as they are sent). Every
 * change stamps `updated_at` from the fake's clock, which is Square's, not the test's (see SquareFake.clockSkewMs).
 */

// Square's objects are open-ended JSON (hence any), as the connector treats them.
export type SquareObject = Record<string, any>;

export type Collection = 'orders' | 'payments' | 'refunds' | 'customers' | 'catalog';

/** A Square-style id: upper-case letters and digits. */
export function squareId(length = 22): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTVWXYZ0123456789';
  return [...randomBytes(length)].map((b) => alphabet[b % alphabet.length]).join('');
}

const money = (amount: number, currency = 'USD') => ({ amount, currency });

export class SquareMerchant {
  readonly id = `ML${squareId(11)}`;
  readonly locations: SquareObject[] = [];
  readonly collections: Record<Collection, Map<string, SquareObject>> = {
    orders: new Map(),
    payments: new Map(),
    refunds: new Map(),
    customers: new Map(),
    catalog: new Map(),
  };
  readonly merchant: SquareObject;
  private last = 0;

  constructor(
    readonly businessName: string,
    /** The fake's clock (ms), Square's time. */
    private readonly clock: () => number,
  ) {
    const created = this.at(-400 * 86_400_000);
    for (const [name, tz] of [
      ['Mission Street', 'America/Los_Angeles'],
      ['Broadway', 'America/New_York'],
    ]) {
      this.locations.push({
        id: `L${squareId(12)}`,
        name,
        business_name: businessName,
        address: {
          address_line_1: `${this.locations.length + 100} ${name}`,
          locality: 'Springfield',
          administrative_district_level_1: 'CA',
          postal_code: '94110',
          country: 'US',
        },
        timezone: tz,
        status: 'ACTIVE',
        created_at: created,
        merchant_id: this.id,
        country: 'US',
        currency: 'USD',
        type: 'PHYSICAL',
        phone_number: '+1 415-555-0100',
        website_url: 'https://shop.example',
        capabilities: ['CREDIT_CARD_PROCESSING'],
      });
    }
    this.merchant = {
      id: this.id,
      business_name: businessName,
      country: 'US',
      language_code: 'en-US',
      currency: 'USD',
      status: 'ACTIVE',
      main_location_id: this.locations[0].id,
      created_at: created,
    };
  }

  /** Square's time `offsetMs` from now, as Square writes it (RFC 3339 with milliseconds, UTC). */
  at(offsetMs = 0): string {
    return new Date(this.clock() + offsetMs).toISOString();
  }

  /** A fresh `updated_at`: Square's now, and later than any stamped before (two changes never share one). */
  stamp(): string {
    this.last = Math.max(this.clock(), this.last + 1);
    return new Date(this.last).toISOString();
  }

  collection(name: Collection): Map<string, SquareObject> {
    return this.collections[name];
  }

  /** A catalog of `items` items (one or two variations each) in three categories. */
  seedCatalog(items: number): void {
    const categories = ['Coffee', 'Pastries', 'Merchandise'].map((name, i) => {
      const id = squareId(24);
      const category = {
        type: 'CATEGORY',
        id,
        updated_at: this.at(-30 * 86_400_000 + i),
        version: 1,
        is_deleted: false,
        present_at_all_locations: true,
        category_data: { name, is_top_level: true },
      };
      this.collections.catalog.set(id, category);
      return category;
    });
    for (let i = 0; i < items; i++) {
      const id = squareId(24);
      const updated = this.at(-20 * 86_400_000 + i * 1000);
      const variations = Array.from({ length: 1 + (i % 2) }, (_, v) => ({
        type: 'ITEM_VARIATION',
        id: squareId(24),
        updated_at: updated,
        version: 1,
        is_deleted: false,
        present_at_all_locations: true,
        item_variation_data: {
          item_id: id,
          name: v === 0 ? 'Regular' : 'Large',
          sku: `SKU-${i}-${v}`,
          pricing_type: 'FIXED_PRICING',
          price_money: money(350 + i * 10 + v * 100),
          sellable: true,
        },
      }));
      this.collections.catalog.set(id, {
        type: 'ITEM',
        id,
        updated_at: updated,
        version: 1,
        is_deleted: false,
        present_at_all_locations: true,
        item_data: {
          name: `Item ${i + 1}`,
          description: `The ${i + 1}th thing we sell`,
          is_taxable: true,
          product_type: i === 0 ? 'GIFT_CARD' : 'REGULAR',
          categories: [{ id: categories[i % 3].id }],
          variations,
        },
      });
    }
  }

  /** `count` customers, created a minute apart. */
  seedCustomers(count: number): void {
    for (let i = 0; i < count; i++) {
      const id = squareId(26);
      const created = this.at(-10 * 86_400_000 + i * 60_000);
      this.collections.customers.set(id, {
        id,
        created_at: created,
        updated_at: created,
        given_name: `Given${i}`,
        family_name: `Family${i}`,
        email_address: `customer${i}@example.com`,
        phone_number: `+1-415-555-${String(1000 + i)}`,
        address: {
          address_line_1: `${i} Market Street`,
          locality: 'San Francisco',
          administrative_district_level_1: 'CA',
          postal_code: '94105',
          country: 'US',
        },
        note: i % 5 === 0 ? 'Regular' : undefined,
        version: 1,
        creation_source: 'THIRD_PARTY',
      });
      if (this.collections.customers.get(id)!.note === undefined) delete this.collections.customers.get(id)!.note;
    }
  }

  /**
   * `count` orders across the locations, a few minutes apart, of items from the catalog: most completed and paid by
   * card (a payment with Square's processing fee), every tenth open, every thirteenth a draft (not a sale yet), and
   * every seventh paid one partly refunded.
   */
  seedOrders(count: number): void {
    const variations = [...this.collections.catalog.values()]
      .filter((o) => o.type === 'ITEM')
      .flatMap((item) => item.item_data.variations as SquareObject[]);
    const customers = [...this.collections.customers.keys()];
    for (let i = 0; i < count; i++) {
      const id = squareId(29);
      const location = this.locations[i % this.locations.length];
      const created = this.at(-5 * 86_400_000 + i * 180_000);
      const state = i % 13 === 12 ? 'DRAFT' : i % 10 === 9 ? 'OPEN' : 'COMPLETED';
      const lines = Array.from({ length: 1 + (i % 3) }, (_, n) => {
        const variation = variations[(i + n) % Math.max(1, variations.length)];
        const unit = variation?.item_variation_data.price_money.amount ?? 500;
        const quantity = 1 + ((i + n) % 3);
        const gross = unit * quantity;
        const tax = Math.round(gross * 0.0875);
        return {
          uid: `line-${n}`,
          name: variation ? `Item for ${variation.id}` : 'Custom amount',
          quantity: String(quantity),
          ...(variation ? { catalog_object_id: variation.id, catalog_version: 1, variation_name: variation.item_variation_data.name } : {}),
          item_type: 'ITEM',
          base_price_money: money(unit),
          gross_sales_money: money(gross),
          total_tax_money: money(tax),
          total_discount_money: money(0),
          total_money: money(gross + tax),
          variation_total_price_money: money(gross),
          applied_taxes: [{ uid: `applied-${n}`, tax_uid: 'sales-tax', applied_money: money(tax) }],
        };
      });
      const total = lines.reduce((sum, l) => sum + l.total_money.amount, 0);
      const taxTotal = lines.reduce((sum, l) => sum + l.total_tax_money.amount, 0);
      const order: SquareObject = {
        id,
        location_id: location.id,
        reference_id: `R-${1000 + i}`,
        source: { name: 'Square Point of Sale' },
        ...(customers.length > 0 && i % 2 === 0 ? { customer_id: customers[i % customers.length] } : {}),
        line_items: lines,
        taxes: [
          {
            uid: 'sales-tax',
            catalog_object_id: 'TAXSALES8750',
            name: 'Sales tax',
            type: 'ADDITIVE',
            percentage: '8.75',
            scope: 'LINE_ITEM',
            applied_money: money(taxTotal),
          },
        ],
        created_at: created,
        updated_at: created,
        state,
        version: 1,
        total_money: money(total),
        total_tax_money: money(taxTotal),
        total_discount_money: money(0),
        total_tip_money: money(0),
        total_service_charge_money: money(0),
        net_amounts: {
          total_money: money(total),
          tax_money: money(taxTotal),
          discount_money: money(0),
          tip_money: money(0),
          service_charge_money: money(0),
        },
      };
      if (state === 'COMPLETED') {
        const paymentId = squareId(29);
        order.closed_at = created;
        order.tenders = [
          {
            id: paymentId,
            location_id: location.id,
            transaction_id: id,
            created_at: created,
            amount_money: money(total),
            type: 'CARD',
            card_details: { status: 'CAPTURED', entry_method: 'EMV' },
            payment_id: paymentId,
          },
        ];
        const payment: SquareObject = {
          id: paymentId,
          created_at: created,
          updated_at: created,
          amount_money: money(total),
          total_money: money(total),
          approved_money: money(total),
          processing_fee: [{ effective_at: created, type: 'INITIAL', amount_money: money(Math.round(total * 0.026) + 10) }],
          status: 'COMPLETED',
          source_type: 'CARD',
          card_details: {
            status: 'CAPTURED',
            card: { card_brand: 'VISA', last_4: '1111', exp_month: 12, exp_year: 2030 },
            entry_method: 'EMV',
          },
          location_id: location.id,
          order_id: id,
          receipt_number: paymentId.slice(0, 4),
          version_token: squareId(20),
        };
        this.collections.payments.set(paymentId, payment);
        if (i % 7 === 0) {
          const refundId = `${paymentId}_${squareId(20)}`;
          const refunded = Math.min(500, total);
          this.collections.refunds.set(refundId, {
            id: refundId,
            status: 'COMPLETED',
            location_id: location.id,
            amount_money: money(refunded),
            payment_id: paymentId,
            order_id: id,
            reason: 'Returned goods',
            destination_type: 'CARD',
            created_at: this.at(-5 * 86_400_000 + i * 180_000 + 60_000),
            updated_at: this.at(-5 * 86_400_000 + i * 180_000 + 60_000),
            // Square gives back the part of the payment's fee on the amount refunded: a negative adjustment.
            processing_fee: [
              {
                effective_at: this.at(-5 * 86_400_000 + i * 180_000 + 60_000),
                type: 'ADJUSTMENT',
                amount_money: money(-Math.round(refunded * 0.026)),
              },
            ],
          });
          payment.refunded_money = money(refunded);
          payment.refund_ids = [refundId];
          order.refunds = [
            { id: refundId, location_id: location.id, reason: 'Returned goods', amount_money: money(refunded), status: 'APPROVED' },
          ];
        }
      }
      this.collections.orders.set(id, order);
    }
  }

  /** Changes an object as the seller would: the fields given, a new `updated_at` and version. */
  update(collection: Collection, id: string, patch: SquareObject): SquareObject {
    const object = this.collections[collection].get(id);
    if (!object) throw new Error(`the fake has no ${collection} ${id}`);
    Object.assign(object, patch, { updated_at: this.stamp() });
    if (typeof object.version === 'number') object.version++;
    return object;
  }

  /** Deletes a catalog object the way Square does: kept with `is_deleted`, answered only to a read asking for deleted ones. */
  deleteCatalogObject(id: string): void {
    this.update('catalog', id, { is_deleted: true });
  }

  /** A customer made through the API (`POST /v2/customers`): the fields given, as Square stamps a new profile. */
  addCustomer(fields: SquareObject): SquareObject {
    const id = squareId(26);
    const created = this.stamp();
    const customer: SquareObject = {
      id,
      created_at: created,
      updated_at: created,
      ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)),
      preferences: { email_unsubscribed: false },
      creation_source: 'THIRD_PARTY',
      version: 0,
    };
    this.collections.customers.set(id, customer);
    return customer;
  }

  /** Deletes a customer: Square forgets the profile, and no search reports it again. */
  deleteCustomer(id: string): void {
    this.collections.customers.delete(id);
  }
}
