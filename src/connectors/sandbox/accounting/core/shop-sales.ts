import { shopPayouts, type ShopPayout } from '../../commerce/payouts.js';
import { dayOf } from '../engine/calendar.js';
import { type Ctx, rateOf } from '../engine/context.js';

/**
 * What the Commerce Sandbox's shop paid into the bank, as the books record it (docs/sandbox-banking-commerce.md, "One
 * company, one story"): the same company (seed, size and as-of day) has a shop, and each payout of its card processor,
 * and each period's takings banked (cash, PayPal, Klarna), is a sale paid into the bank account of its currency, a
 * card payout's fees a bank charge. Each is a direct income (and its account transaction and journal entry) numbered
 * after every other source, from SHOP_BASE.
 */

/**
 * Source numbers of what the shop paid in start here, past any other source: invoices stop at 5,000,000 at the first
 * sync and grow by 1% of that a sync, so other sources stay below SHOP_BASE for about 1,200 syncs of the largest size
 * (many more for smaller ones); beyond that, streams that interleave sources by number would fall out of id order.
 * Slots are at most 6 a day over 36 months, so `source * 16 + code` stays under 2^31 and the Banking Sandbox's line
 * numbers (twice that) under 2^32, where its hashes keep them apart.
 */
export const SHOP_BASE = 2 ** 26;

export interface ShopSale extends ShopPayout {
  /** Its source number (SHOP_BASE + its slot). */
  source: number;
  /** Books' day (days since 1970). */
  day: number;
  /** Pounds per unit of the currency on the day, as the books convert it (1 for GBP). */
  rate: number;
}

const cache = new WeakMap<Ctx, ShopSale[]>();

/**
 * What the shop paid in, as the books' sales, in source order, at every epoch: as the first sync has it. Nothing is
 * added later (money settled after the as-of day is not yet paid in), and the books (like the bank) keep what was paid
 * in as it was: the Commerce Sandbox recomputes a paid payout when an order it settled is deleted at a later sync, the
 * money that arrived does not change.
 */
export function shopSales(ctx: Ctx): readonly ShopSale[] {
  let sales = cache.get(ctx);
  if (!sales) {
    const payouts = shopPayouts({ settings: { seed: ctx.seed, invoices: ctx.invoices, asOf: ctx.asOf }, epoch: 0 });
    sales = payouts.map((payout) => {
      const day = dayOf(payout.date);
      return { ...payout, source: SHOP_BASE + payout.slot, day, rate: rateOf(ctx, payout.currency, day) };
    });
    cache.set(ctx, sales);
  }
  return sales;
}
