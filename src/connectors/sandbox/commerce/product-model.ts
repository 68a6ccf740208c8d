import { guid, h3, u3, u4 } from '../banking/kit/fast.js';
import {
  ADJECTIVES,
  APPAREL_SIZES,
  CATEGORIES,
  COLOURS,
  GIFT_DENOMINATIONS,
  LEAF_CUM,
  LEAVES,
  SHOE_SIZES,
  type CategoryDef,
} from './catalog.js';
import { TAX_CLASSES, type TaxClass } from './places.js';
import { KEY, type CommercePlan } from './plan.js';

/** Draw keys of a product. */
const P = { leaf: 1, adjective: 2, material: 3, noun: 4, price: 5, colours: 6, sizes: 7, start: 8, discontinued: 9 };

export interface VariantSummary {
  id: string;
  name: string;
  /** `{id, name}` as order lines name the variant (shared, frozen). */
  ref: Readonly<{ id: string; name: string }>;
  /** Unit price in cents per currency (GBP, USD, EUR), net of tax. */
  prices: [number, number, number];
}

/** What an order line needs of a product: ids, names, prices and tax class. */
export interface ProductSummary {
  index: number;
  id: string;
  name: string;
  material: string;
  category: number;
  taxClass: TaxClass;
  isGiftCard: boolean;
  discontinued: boolean;
  variants: VariantSummary[];
  variantCount: number;
  /** Unit prices (cents) by `variant × 3 + currency`: one flat array, so an order line touches little memory. */
  priceTable: Int32Array;
  /** `{id, name}` as order lines name the product (shared, frozen). */
  ref: Readonly<{ id: string; name: string }>;
  /** Index of the tax class in TAX_CLASSES. */
  taxClassIndex: number;
  /** Epoch at which the product was deleted (0: live at the fetched epoch). */
  deleted: number;
}

function leafOf(u: number): number {
  const x = u * LEAF_CUM[LEAF_CUM.length - 1];
  let i = 0;
  while (i < LEAF_CUM.length - 1 && x >= LEAF_CUM[i]) i++;
  return LEAVES[i];
}

function roundPrice(units: number): number {
  return units > 30 ? Math.round(units / 5) * 5 : Math.round(units);
}

/** `Colour / Size` names, built once (products are generated on demand, often). */
const APPAREL_NAMES = COLOURS.map((c) => APPAREL_SIZES.map((size) => `${c} / ${size}`));
const SHOE_NAMES = COLOURS.map((c) => SHOE_SIZES.map((size) => `${c} / ${size}`));
const GIFT_NAMES = GIFT_DENOMINATIONS.map(([gbp]) => `£${gbp}`);
const SINGLE = ['Default'];

/** Variant names of a product: colour and size grids for clothing, colours for homeware, denominations for gift cards. */
function variantNames(seed: number, p: number, leaf: CategoryDef['leaf'] & object): string[] {
  if (leaf.scheme === 'gift') return GIFT_NAMES;
  if (leaf.scheme === 'single') return SINGLE;
  const colourCount = leaf.scheme === 'colour' ? 1 + (h3(seed, p, P.colours) % 3) : 1 + (u3(seed, p, P.colours) < 0.35 ? 1 : 0);
  const firstColour = h3(seed, p, P.start) % COLOURS.length;
  const names: string[] = [];
  if (leaf.scheme === 'colour') {
    for (let i = 0; i < colourCount; i++) names.push(COLOURS[(firstColour + i * 5) % COLOURS.length]);
  } else if (leaf.scheme === 'shoes') {
    const start = h3(seed, p, P.sizes) % (SHOE_SIZES.length - 3);
    for (let s = start; s < start + 4; s++) names.push(SHOE_NAMES[firstColour][s]);
  } else {
    const run = colourCount > 1 ? 3 : 4;
    const start = h3(seed, p, P.sizes) % (APPAREL_SIZES.length - run);
    for (let i = 0; i < colourCount; i++) {
      const colour = (firstColour + i * 5) % COLOURS.length;
      for (let s = start; s < start + run; s++) names.push(APPAREL_NAMES[colour][s]);
    }
  }
  return names;
}

export function productSummary(plan: CommercePlan, p: number): ProductSummary {
  const { seed } = plan;
  const category = leafOf(u3(seed, p, P.leaf));
  const leaf = CATEGORIES[category].leaf!;
  const noun = leaf.nouns[h3(seed, p, P.noun) % leaf.nouns.length];
  const isGiftCard = leaf.scheme === 'gift';
  const material = leaf.materials[h3(seed, p, P.material) % leaf.materials.length];
  const name = isGiftCard ? noun : `${ADJECTIVES[h3(seed, p, P.adjective) % ADJECTIVES.length]} ${material} ${noun}`;
  const base = roundPrice(leaf.price[0] + u3(seed, p, P.price) * (leaf.price[1] - leaf.price[0]));
  const names = variantNames(seed, p, leaf);
  const variants: VariantSummary[] = new Array(names.length);
  const priceTable = new Int32Array(names.length * 3);
  for (let v = 0; v < names.length; v++) {
    const prices: [number, number, number] = isGiftCard
      ? [GIFT_DENOMINATIONS[v][0] * 100, GIFT_DENOMINATIONS[v][1] * 100, GIFT_DENOMINATIONS[v][2] * 100]
      : [base * 100, Math.round(base * 1.28) * 100 - 1, Math.round(base * 1.16) * 100];
    const id = guid(seed, KEY.variants, p * 8 + v);
    variants[v] = { id, name: names[v], ref: Object.freeze({ id, name: names[v] }), prices };
    priceTable.set(prices, v * 3);
  }
  const id = guid(seed, KEY.products, p);
  return {
    variantCount: variants.length,
    priceTable,
    index: p,
    id,
    name,
    material,
    category,
    taxClass: leaf.taxClass,
    taxClassIndex: TAX_CLASSES.indexOf(leaf.taxClass),
    isGiftCard,
    ref: Object.freeze({ id, name }),
    discontinued: !isGiftCard && u3(seed, p, P.discontinued) < 0.05,
    variants,
    deleted: plan.productMoves.deletedAt(p),
  };
}

/**
 * Layout of a cached product in `ProductCache.facts` (16-bit words, 64 bytes a product): variant count, tax
 * class, gift card flag, deletion epoch, then unit prices in cents by `variant × 3 + currency` (all under 65,536).
 */
export const PF = { variants: 0, taxClass: 1, giftCard: 2, deleted: 3, prices: 4, stride: 32 } as const;
/** `ProductCache.refs` per slot: the product's `{id, name}`, then one per variant. */
export const REF_STRIDE = 8;
const MAX_VARIANTS = 7;

/**
 * A direct-mapped cache of what order lines need of a product, laid out flat (struct of arrays) so that a line
 * touches little memory: bounded at 16,384 slots (about 1.5 MB) whatever the catalogue size, and enough for the
 * whole catalogue below that, so popular products stay resident.
 */
export class ProductCache {
  readonly facts: Uint16Array;
  readonly refs: Readonly<{ id: string; name: string }>[];
  private readonly tags: Int32Array;
  private readonly mask: number;

  constructor(private readonly plan: CommercePlan) {
    let size = 256;
    while (size < plan.productMoves.total && size < 16_384) size *= 2;
    this.facts = new Uint16Array(size * PF.stride);
    this.refs = new Array(size * REF_STRIDE);
    this.tags = new Int32Array(size).fill(-1);
    this.mask = size - 1;
  }

  /** The slot holding product `p` (generated on a miss). */
  slot(p: number): number {
    const s = p & this.mask;
    if (this.tags[s] !== p) {
      const summary = productSummary(this.plan, p);
      if (summary.variantCount > MAX_VARIANTS || summary.deleted > 0xffff) throw new Error(`product ${p} does not fit the cache layout`);
      const base = s * PF.stride;
      this.facts[base + PF.variants] = summary.variantCount;
      this.facts[base + PF.taxClass] = summary.taxClassIndex;
      this.facts[base + PF.giftCard] = summary.isGiftCard ? 1 : 0;
      this.facts[base + PF.deleted] = summary.deleted;
      for (let i = 0; i < summary.priceTable.length; i++) {
        if (summary.priceTable[i] > 0xffff) throw new Error(`price of product ${p} does not fit the cache layout`);
        this.facts[base + PF.prices + i] = summary.priceTable[i];
      }
      this.refs[s * REF_STRIDE] = summary.ref;
      for (let v = 0; v < summary.variantCount; v++) this.refs[s * REF_STRIDE + 1 + v] = summary.variants[v].ref;
      this.tags[s] = p;
    }
    return s;
  }
}

/**
 * A popular product among the first `available`: low numbers (the long-standing range) sell most, roughly
 * Pareto-like (the first fifth of the range takes about 60% of sales).
 */
export function popularProduct(available: number, u: number): number {
  return Math.min(available - 1, Math.floor(available * u * u * u));
}

/** EAN-13 barcode in a GS1 UK range, unique per variant. */
export function barcodeOf(seed: number, p: number, v: number): string {
  const body = `5060${String(((p * 8 + v) * 7 + (seed >>> 0)) % 100_000_000).padStart(8, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 ? 3 : 1);
  return body + String((10 - (sum % 10)) % 10);
}

/** Stock of a variant at a location (changes when the product changes). */
export function stockOf(seed: number, p: number, v: number, location: number, warehouse: boolean, changed: number): number {
  const max = warehouse ? 400 : 40;
  return Math.floor(u4(seed, p * 8 + v, location, changed) * (max + 1));
}
