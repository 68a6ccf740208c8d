import type { FetchContext } from '../generated-source.js';
import { keyOf } from '../random.js';
import { Calendar } from '../banking/kit/calendar.js';
import { guid, Ids, seedState, u3 } from '../banking/kit/fast.js';
import { DEFAULT_RATES, Movement } from '../banking/kit/movement.js';
import { CATEGORIES } from './catalog.js';
import { PAYMENT_METHODS, paymentMethodDef, type PaymentMethodDef } from './payment-kinds.js';
import {
  baseLocations,
  componentsFor,
  COUNTRIES,
  CURRENCIES,
  customTaxComponent,
  locationDef,
  REGIME_LIST,
  TAX_CLASSES,
  TAX_COMPONENTS,
  type Country,
  type Currency,
  type LocationDef,
  type Regime,
  type TaxClass,
  type TaxComponentDef,
} from './places.js';

export const KEY = {
  orders: keyOf('commerce-orders'),
  customers: keyOf('commerce-customers'),
  products: keyOf('commerce-products'),
  variants: keyOf('commerce-productVariants'),
  categories: keyOf('commerce-productCategories'),
  locations: keyOf('commerce-locations'),
  taxComponents: keyOf('commerce-taxComponents'),
  paymentMethods: keyOf('commerce-paymentMethods'),
  transactions: keyOf('commerce-transactions'),
  disputes: keyOf('commerce-disputes'),
  companyInfo: keyOf('commerce-companyInfo'),
};

/** Reference data (locations, tax components, payment methods) is closed or archived, never deleted. */
const NO_DELETE = { ...DEFAULT_RATES, delete: 0 };

export interface Ref {
  id: string;
  name: string;
}

export interface LocationPlan extends Ref {
  index: number;
  def: LocationDef;
  currency: number;
  createdEpoch: number;
  /** `{id, name}` as orders and stock levels name the location (shared, frozen). */
  ref: Readonly<Ref>;
  /** Index of the location's tax regime × 4 (see `taxRules`). */
  regimeBase: number;
}

/** The tax a line pays under a regime and tax class: its components, their refs and rates. */
export interface TaxRule {
  components: number[];
  refs: Readonly<Ref>[];
  rates: number[];
  /** Sum of the rates as a percentage (0 to 100), e.g. 8.875 in New York City. */
  percentage: number;
}

/** Everything about a commerce company that does not depend on one record; built once per fetch. */
export class CommercePlan {
  readonly seed: number;
  /** `seedState(seed)`: hashes keyed by the seed first start from it (see `h3s`). */
  readonly seedState: number;
  readonly epoch: number;
  readonly invoices: number;
  /** Id makers of the high-volume types. */
  readonly ids: { orders: Ids; customers: Ids; transactions: Ids };
  readonly cal: Calendar;
  readonly orderMoves: Movement;
  readonly customerMoves: Movement;
  readonly productMoves: Movement;
  readonly locationMoves: Movement;
  readonly categoryMoves: Movement;
  readonly taxMoves: Movement;
  readonly methodMoves: Movement;
  readonly locations: LocationPlan[] = [];
  readonly taxComponents: (Ref & { def: TaxComponentDef })[] = [];
  readonly methods: (Ref & { def: PaymentMethodDef; ref: Readonly<Ref> })[] = [];
  /** Tax rules by `regime index × 4 + tax class index` (see REGIME_LIST and TAX_CLASSES). */
  readonly taxRules: TaxRule[] = [];
  /** Products that exist from the first day (the launch catalogue); the rest are added over the span. */
  readonly launchProducts: number;
  /** Per creation epoch: the order-taking locations open then, with cumulative weights. */
  private readonly locationCum: { index: number[]; cum: Float64Array; total: number }[] = [];

  constructor(ctx: FetchContext) {
    const { seed, invoices, asOf } = ctx.settings;
    if (!Number.isInteger(invoices) || invoices < 1) throw new Error(`invoices must be a positive integer, got ${invoices}`);
    this.seed = seed;
    this.seedState = seedState(seed);
    this.epoch = ctx.epoch;
    this.invoices = invoices;
    this.ids = {
      orders: new Ids(seed, KEY.orders),
      customers: new Ids(seed, KEY.customers),
      transactions: new Ids(seed, KEY.transactions),
    };
    this.cal = new Calendar(asOf);
    const e = ctx.epoch;
    this.orderMoves = new Movement(seed, KEY.orders, invoices, e);
    this.customerMoves = new Movement(seed, KEY.customers, Math.max(20, Math.round(invoices / 4)), e);
    const products = Math.min(50_000, Math.max(20, Math.round(8 * Math.sqrt(invoices))));
    this.productMoves = new Movement(seed, KEY.products, products, e);
    this.launchProducts = Math.ceil(products * 0.4);
    this.locationMoves = new Movement(seed, KEY.locations, baseLocations(invoices), e, NO_DELETE);
    this.categoryMoves = new Movement(seed, KEY.categories, CATEGORIES.length, e, NO_DELETE);
    this.taxMoves = new Movement(seed, KEY.taxComponents, TAX_COMPONENTS.length, e, NO_DELETE);
    this.methodMoves = new Movement(seed, KEY.paymentMethods, PAYMENT_METHODS.length, e, NO_DELETE);
    for (let i = 0; i < this.locationMoves.total; i++) {
      const def = locationDef(i);
      const id = guid(seed, KEY.locations, i);
      this.locations.push({
        index: i,
        id,
        name: def.name,
        def,
        ref: Object.freeze({ id, name: def.name }),
        regimeBase: REGIME_LIST.indexOf(def.regime) * 4,
        currency: CURRENCIES.indexOf(COUNTRIES[def.country].currency),
        createdEpoch: this.locationMoves.createdAt(i),
      });
    }
    for (let i = 0; i < this.taxMoves.total; i++) {
      const def = i < TAX_COMPONENTS.length ? TAX_COMPONENTS[i] : customTaxComponent(i);
      this.taxComponents.push({ id: guid(seed, KEY.taxComponents, i), name: def.name, def });
    }
    for (let i = 0; i < this.methodMoves.total; i++) {
      const def = paymentMethodDef(i);
      const id = guid(seed, KEY.paymentMethods, i);
      this.methods.push({ id, name: def.name, def, ref: Object.freeze({ id, name: def.name }) });
    }
    for (const regime of REGIME_LIST) {
      for (const taxClass of TAX_CLASSES) {
        const components = componentsFor(regime, taxClass);
        const rates = components.map((c) => this.taxComponents[c].def.rate);
        this.taxRules.push({
          components,
          refs: components.map((c) => Object.freeze({ id: this.taxComponents[c].id, name: this.taxComponents[c].name })),
          rates,
          percentage: Math.round(rates.reduce((a, r) => a + r, 0) * 1_000_000) / 10_000,
        });
      }
    }
    for (let k = 0; k <= e; k++) {
      const open = this.locations.filter((l) => l.createdEpoch <= k && l.def.weight > 0);
      const cum = new Float64Array(open.length);
      let total = 0;
      open.forEach((l, i) => (cum[i] = total += l.def.weight));
      this.locationCum.push({ index: open.map((l) => l.index), cum, total });
    }
  }

  taxRule(regime: Regime, taxClass: TaxClass): TaxRule {
    return this.taxRules[REGIME_LIST.indexOf(regime) * 4 + TAX_CLASSES.indexOf(taxClass)];
  }

  /** The location taking an order created at `epoch`, for a uniform `u`. */
  locationFor(epoch: number, u: number): LocationPlan {
    const table = this.locationCum[epoch];
    const x = u * table.total;
    let i = 0;
    while (i < table.cum.length - 1 && x >= table.cum[i]) i++;
    return this.locations[table.index[i]];
  }

  /** Customers created strictly before `day` (epoch 0), or all customers of earlier epochs (epoch ≥ 1). */
  customersBefore(day: number, epoch: number): number {
    if (epoch > 0) return this.customerMoves.totals[epoch - 1];
    return Math.min(this.customerMoves.base, Math.floor((day * this.customerMoves.base) / this.cal.days));
  }

  /** Products created strictly before `day` (epoch 0), or all products of earlier epochs (epoch ≥ 1). */
  productsBefore(day: number, epoch: number): number {
    if (epoch > 0) return this.productMoves.totals[epoch - 1];
    const later = this.productMoves.base - this.launchProducts;
    return this.launchProducts + Math.min(later, Math.floor((day * later) / this.cal.days));
  }

  /** Day a base customer was created (customers are numbered in creation order over the span). */
  customerDay(c: number): number {
    return Math.floor(((c + u3(this.seed, KEY.customers, c)) * this.cal.days) / this.customerMoves.base);
  }

  /** Day before which a base product exists: launch products predate the span, later ones arrive evenly. */
  productDay(p: number): number {
    if (p < this.launchProducts) return -1 - (p % 60);
    const later = this.productMoves.base - this.launchProducts;
    return Math.floor(((p - this.launchProducts + u3(this.seed, KEY.products, p)) * this.cal.days) / later) - 1;
  }

  /**
   * Creation time (`YYYY-MM-DDTHH:MM:SS`, UTC written as local) of a record appended at epoch k ≥ 1: within
   * the hour before the epoch's instant (`asOf` + k hours).
   */
  appendedLocal(k: number, key: number, index: number): string {
    const seconds = k * 3600 - 60 - Math.floor(u3(this.seed, key, index) * 3540);
    const day = Math.floor(seconds / 86400);
    return this.cal.localTime(this.cal.days - 1 + day, seconds - day * 86400);
  }
}

export { CURRENCIES, type Country, type Currency };
