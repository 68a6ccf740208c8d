import { A } from './chart.js';
import { type Ctx, K, type Ref } from './context.js';
import { guid, r4 } from './hash.js';
import { MATERIALS, PRODUCT_ADJECTIVES, PRODUCT_NOUNS, SERVICE_LEVELS, SERVICE_NOUNS, UNITS } from './words.js';

/**
 * Items as pure functions of their index. Kinds cycle every five items: two inventory products (bought on
 * bills, sold on invoices), two services (sold only) and one material (bought only), so a document can turn
 * any random index into an item of the kind it needs in O(1). `seed` is the company's seed key (`ctx.hs`).
 */
const HK = K.items >>> 2;

export const INVENTORY = 0;
export const SERVICE = 1;
export const MATERIAL = 2;

export function itemKind(k: number): number {
  const r = k % 5;
  return r < 2 ? INVENTORY : r < 4 ? SERVICE : MATERIAL;
}

/** An item that can be invoiced: a material becomes the service before it. */
export function asInvoiceItem(k: number): number {
  return k % 5 === 4 ? k - 1 : k;
}

/** An item that can be billed: a service becomes the product two or three before it. */
export function asBillItem(k: number): number {
  const r = k % 5;
  return r === 2 || r === 3 ? k - r : k;
}

export function itemName(seed: number, k: number): string {
  const h = r4(seed, HK, k, 1);
  switch (itemKind(k)) {
    case INVENTORY:
      return `${PRODUCT_ADJECTIVES[h % PRODUCT_ADJECTIVES.length]} ${PRODUCT_NOUNS[(h >>> 8) % PRODUCT_NOUNS.length]} ${String.fromCharCode(65 + ((h >>> 16) % 26))}${100 + (k % 900)}`;
    case SERVICE:
      return `${SERVICE_NOUNS[h % SERVICE_NOUNS.length]} - ${SERVICE_LEVELS[(h >>> 8) % SERVICE_LEVELS.length]}`;
    default:
      return `${MATERIALS[h % MATERIALS.length]} (grade ${String.fromCharCode(65 + ((h >>> 8) % 3))})`;
  }
}

export function itemCode(k: number): string {
  const prefix = itemKind(k) === INVENTORY ? 'PRD' : itemKind(k) === SERVICE ? 'SVC' : 'MAT';
  return `${prefix}-${String(k + 1).padStart(4, '0')}`;
}

export function itemUnit(k: number): string {
  return itemKind(k) === SERVICE ? 'hour' : UNITS[k % 7];
}

/** Sale price in pence (0 for materials). */
export function itemPrice(seed: number, k: number): number {
  const h = r4(seed, HK, k, 2);
  const kind = itemKind(k);
  if (kind === INVENTORY) return 500 + (h % 39_500);
  if (kind === SERVICE) return 6_000 + (h % 14_000);
  return 0;
}

/** Purchase cost in pence (0 for services). */
export function itemCost(seed: number, k: number): number {
  const kind = itemKind(k);
  if (kind === INVENTORY) return Math.round(itemPrice(seed, k) * (0.5 + (r4(seed, HK, k, 3) % 15) / 100));
  if (kind === MATERIAL) return 200 + (r4(seed, HK, k, 3) % 14_800);
  return 0;
}

export function itemSalesAccount(seed: number, k: number): number {
  if (itemKind(k) !== SERVICE) return A.SalesProducts;
  return r4(seed, HK, k, 4) % 3 === 0 ? A.Consulting : A.SalesServices;
}

/** What invoice and bill lines need of the items that exist from the start, prepared once per company. */
export interface ItemTable {
  count: number;
  refs: Ref[];
  price: Float64Array;
  cost: Float64Array;
  salesAccount: Int8Array;
}

/** Kept on the context itself: documents ask for it once or twice per record. */
export function itemTable(ctx: Ctx): ItemTable {
  let t = (ctx as { itemTable?: ItemTable }).itemTable;
  if (!t) {
    const count = ctx.lc.items.base;
    t = { count, refs: [], price: new Float64Array(count), cost: new Float64Array(count), salesAccount: new Int8Array(count) };
    for (let k = 0; k < count; k++) {
      t.refs.push({ id: guid(ctx.seed, K.items, k), name: itemName(ctx.hs, k) });
      t.price[k] = itemPrice(ctx.hs, k);
      t.cost[k] = itemCost(ctx.hs, k);
      t.salesAccount[k] = itemSalesAccount(ctx.hs, k);
    }
    (ctx as { itemTable?: ItemTable }).itemTable = t;
  }
  return t;
}
