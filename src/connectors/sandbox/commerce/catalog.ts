import type { TaxClass } from './places.js';

/** The shop's product category tree (apparel and homeware) and what each leaf sells. */

export type VariantScheme = 'apparel' | 'shoes' | 'colour' | 'gift' | 'single';

export interface CategoryDef {
  name: string;
  /** Index of the parent category, or -1 for a root. */
  parent: number;
  leaf?: {
    code: string;
    nouns: readonly string[];
    materials: readonly string[];
    /** GBP list price range (net of tax). */
    price: readonly [number, number];
    scheme: VariantScheme;
    taxClass: TaxClass;
    /** Share of the catalogue. */
    weight: number;
    care: string;
  };
}

const COTTON = ['Organic Cotton', 'Cotton', 'Linen', 'Merino', 'Brushed Cotton'];
const TOUGH = ['Denim', 'Canvas', 'Corduroy', 'Twill', 'Ripstop'];

export const CATEGORIES: readonly CategoryDef[] = [
  { name: 'Apparel', parent: -1 },
  { name: 'Tops', parent: 0 },
  {
    name: 'T-Shirts',
    parent: 1,
    leaf: {
      code: 'TEE',
      nouns: ['Crew Tee', 'Pocket Tee', 'V-Neck Tee', 'Long Sleeve Tee'],
      materials: COTTON,
      price: [18, 35],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 10,
      care: 'Machine wash at 30°C.',
    },
  },
  {
    name: 'Shirts',
    parent: 1,
    leaf: {
      code: 'SHT',
      nouns: ['Oxford Shirt', 'Overshirt', 'Camp Collar Shirt', 'Work Shirt'],
      materials: ['Cotton', 'Linen', 'Flannel', 'Chambray'],
      price: [45, 85],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 6,
      care: 'Machine wash at 40°C.',
    },
  },
  {
    name: 'Knitwear',
    parent: 1,
    leaf: {
      code: 'KNT',
      nouns: ['Crew Jumper', 'Cardigan', 'Roll Neck', 'Fisherman Sweater'],
      materials: ['Merino', 'Lambswool', 'Cashmere Blend', 'Cotton'],
      price: [55, 140],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 5,
      care: 'Hand wash cold, dry flat.',
    },
  },
  { name: 'Bottoms', parent: 0 },
  {
    name: 'Jeans',
    parent: 5,
    leaf: {
      code: 'JNS',
      nouns: ['Straight Jeans', 'Slim Jeans', 'Wide Leg Jeans', 'Carpenter Jeans'],
      materials: ['Selvedge Denim', 'Organic Denim', 'Stretch Denim'],
      price: [60, 120],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 5,
      care: 'Wash inside out, cold.',
    },
  },
  {
    name: 'Trousers',
    parent: 5,
    leaf: {
      code: 'TRS',
      nouns: ['Chinos', 'Pleated Trousers', 'Drawstring Trousers', 'Cargo Trousers'],
      materials: TOUGH,
      price: [50, 95],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 4,
      care: 'Machine wash at 30°C.',
    },
  },
  {
    name: 'Shorts',
    parent: 5,
    leaf: {
      code: 'SHR',
      nouns: ['Chino Shorts', 'Swim Shorts', 'Running Shorts'],
      materials: ['Cotton', 'Recycled Nylon', 'Linen'],
      price: [30, 55],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 3,
      care: 'Machine wash at 30°C.',
    },
  },
  { name: 'Outerwear', parent: 0 },
  {
    name: 'Jackets',
    parent: 9,
    leaf: {
      code: 'JKT',
      nouns: ['Chore Jacket', 'Bomber Jacket', 'Field Jacket', 'Rain Jacket'],
      materials: ['Waxed Cotton', 'Canvas', 'Recycled Nylon', 'Moleskin'],
      price: [90, 220],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 3,
      care: 'Sponge clean only.',
    },
  },
  {
    name: 'Coats',
    parent: 9,
    leaf: {
      code: 'COT',
      nouns: ['Overcoat', 'Parka', 'Duffle Coat', 'Trench Coat'],
      materials: ['Wool Blend', 'Melton Wool', 'Cotton Gabardine'],
      price: [150, 320],
      scheme: 'apparel',
      taxClass: 'standard',
      weight: 2,
      care: 'Dry clean only.',
    },
  },
  { name: 'Footwear', parent: -1 },
  {
    name: 'Trainers',
    parent: 12,
    leaf: {
      code: 'TRN',
      nouns: ['Court Trainer', 'Runner', 'High Top', 'Slip-On'],
      materials: ['Leather', 'Suede', 'Canvas'],
      price: [65, 140],
      scheme: 'shoes',
      taxClass: 'standard',
      weight: 4,
      care: 'Wipe clean with a damp cloth.',
    },
  },
  {
    name: 'Boots',
    parent: 12,
    leaf: {
      code: 'BOT',
      nouns: ['Chelsea Boot', 'Derby Boot', 'Hiking Boot'],
      materials: ['Leather', 'Suede', 'Waxed Leather'],
      price: [110, 230],
      scheme: 'shoes',
      taxClass: 'standard',
      weight: 2,
      care: 'Condition the leather regularly.',
    },
  },
  { name: 'Accessories', parent: -1 },
  {
    name: 'Bags',
    parent: 15,
    leaf: {
      code: 'BAG',
      nouns: ['Tote Bag', 'Backpack', 'Weekender', 'Crossbody Bag'],
      materials: ['Canvas', 'Leather', 'Recycled Nylon'],
      price: [25, 160],
      scheme: 'colour',
      taxClass: 'standard',
      weight: 4,
      care: 'Spot clean.',
    },
  },
  {
    name: 'Hats & Scarves',
    parent: 15,
    leaf: {
      code: 'HAT',
      nouns: ['Beanie', 'Baseball Cap', 'Bucket Hat', 'Scarf'],
      materials: ['Merino', 'Cotton Twill', 'Lambswool'],
      price: [18, 45],
      scheme: 'colour',
      taxClass: 'standard',
      weight: 4,
      care: 'Hand wash cold.',
    },
  },
  {
    name: 'Socks',
    parent: 15,
    leaf: {
      code: 'SCK',
      nouns: ['Crew Socks 3-Pack', 'Hiking Socks', 'Ankle Socks 5-Pack'],
      materials: ['Organic Cotton', 'Merino', 'Bamboo'],
      price: [9, 24],
      scheme: 'colour',
      taxClass: 'standard',
      weight: 5,
      care: 'Machine wash at 40°C.',
    },
  },
  { name: 'Home', parent: -1 },
  { name: 'Kitchen', parent: 19 },
  {
    name: 'Mugs',
    parent: 20,
    leaf: {
      code: 'MUG',
      nouns: ['Mug', 'Espresso Cup Set', 'Travel Mug'],
      materials: ['Stoneware', 'Enamel', 'Porcelain'],
      price: [8, 26],
      scheme: 'colour',
      taxClass: 'standard',
      weight: 5,
      care: 'Dishwasher safe.',
    },
  },
  {
    name: 'Tableware',
    parent: 20,
    leaf: {
      code: 'TBL',
      nouns: ['Dinner Plate Set', 'Serving Bowl', 'Tumbler Set', 'Linen Napkins'],
      materials: ['Stoneware', 'Recycled Glass', 'Linen'],
      price: [16, 65],
      scheme: 'colour',
      taxClass: 'standard',
      weight: 4,
      care: 'Dishwasher safe.',
    },
  },
  { name: 'Textiles', parent: 19 },
  {
    name: 'Blankets',
    parent: 23,
    leaf: {
      code: 'BLK',
      nouns: ['Throw', 'Picnic Blanket', 'Waffle Blanket'],
      materials: ['Wool', 'Cotton', 'Mohair Blend'],
      price: [45, 140],
      scheme: 'colour',
      taxClass: 'standard',
      weight: 3,
      care: 'Dry clean or hand wash.',
    },
  },
  {
    name: 'Cushions',
    parent: 23,
    leaf: {
      code: 'CSH',
      nouns: ['Cushion Cover', 'Floor Cushion', 'Bolster'],
      materials: ['Linen', 'Velvet', 'Bouclé'],
      price: [22, 60],
      scheme: 'colour',
      taxClass: 'standard',
      weight: 3,
      care: 'Remove insert before washing.',
    },
  },
  {
    name: 'Candles',
    parent: 19,
    leaf: {
      code: 'CND',
      nouns: ['Scented Candle', 'Pillar Candle', 'Candle Trio'],
      materials: ['Soy Wax', 'Beeswax', 'Rapeseed Wax'],
      price: [12, 42],
      scheme: 'single',
      taxClass: 'standard',
      weight: 4,
      care: 'Trim the wick before lighting.',
    },
  },
  { name: 'Kids', parent: -1 },
  {
    name: "Kids' Clothing",
    parent: 27,
    leaf: {
      code: 'KID',
      nouns: ['Kids Tee', 'Kids Hoodie', 'Kids Dungarees'],
      materials: ['Organic Cotton', 'Cotton Fleece', 'Corduroy'],
      price: [14, 38],
      scheme: 'apparel',
      taxClass: 'zero',
      weight: 3,
      care: 'Machine wash at 40°C.',
    },
  },
  {
    name: 'Baby',
    parent: 27,
    leaf: {
      code: 'BBY',
      nouns: ['Baby Romper', 'Muslin Set', 'Baby Blanket'],
      materials: ['Organic Cotton', 'Bamboo', 'Merino'],
      price: [12, 40],
      scheme: 'colour',
      taxClass: 'zero',
      weight: 2,
      care: 'Machine wash at 40°C.',
    },
  },
  {
    name: 'Gift Cards',
    parent: -1,
    leaf: {
      code: 'GFT',
      nouns: ['Gift Card'],
      materials: ['Digital'],
      price: [25, 100],
      scheme: 'gift',
      taxClass: 'none',
      weight: 0.6,
      care: 'Valid for 24 months.',
    },
  },
];

/** Leaf categories with cumulative weights, for picking a product's category. */
export const LEAVES: readonly number[] = CATEGORIES.flatMap((c, i) => (c.leaf ? [i] : []));
export const LEAF_CUM: Float64Array = (() => {
  const cum = new Float64Array(LEAVES.length);
  let total = 0;
  LEAVES.forEach((i, j) => (cum[j] = total += CATEGORIES[i].leaf!.weight));
  return cum;
})();

/** Categories a later epoch adds (seasonal edits under existing parents). */
const EDITS: ReadonlyArray<[string, number]> = [
  ['Summer Edit', 0],
  ['Festive Gifting', 19],
  ['Limited Editions', 15],
  ['Outlet', 0],
  ['Collaborations', 12],
];

export function categoryDef(i: number): CategoryDef {
  if (i < CATEGORIES.length) return CATEGORIES[i];
  const n = i - CATEGORIES.length;
  const [name, parent] = EDITS[n % EDITS.length];
  const round = Math.floor(n / EDITS.length);
  return { name: round ? `${name} ${round + 1}` : name, parent };
}

/** Ancestors of a category, root first (as `ancestorRefs` lists them, immediate parent last). */
export function ancestorsOf(i: number): number[] {
  const out: number[] = [];
  for (let p = categoryDef(i).parent; p >= 0; p = CATEGORIES[p].parent) out.unshift(p);
  return out;
}

export const ADJECTIVES = [
  'Classic',
  'Relaxed',
  'Everyday',
  'Heritage',
  'Essential',
  'Washed',
  'Garment-Dyed',
  'Recycled',
  'Signature',
  'Studio',
  'Weekend',
  'Coastal',
];
export const COLOURS = [
  'Black',
  'Navy',
  'Ecru',
  'Olive',
  'Stone',
  'Rust',
  'Sage',
  'Charcoal',
  'Sky Blue',
  'Burgundy',
  'Oat',
  'Forest Green',
];
export const APPAREL_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];
export const SHOE_SIZES = ['UK 5', 'UK 6', 'UK 7', 'UK 8', 'UK 9', 'UK 10', 'UK 11'];
/** Gift card denominations per currency (GBP, USD, EUR), in whole units. */
export const GIFT_DENOMINATIONS: readonly (readonly [number, number, number])[] = [
  [25, 30, 30],
  [50, 60, 60],
  [100, 120, 120],
];
