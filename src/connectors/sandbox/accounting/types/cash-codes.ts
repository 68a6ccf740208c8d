/**
 * Account and bank transactions are indexed `source * 16 + code` so that they stream in id order while
 * walking the sources (invoice i, bill i, direct cost i, direct income i, transfer i) together.
 */
export const C_PAYMENT_1 = 0;
export const C_PAYMENT_2 = 1;
export const C_BILL_PAYMENT_1 = 2;
export const C_BILL_PAYMENT_2 = 3;
export const C_DIRECT_COST = 4;
export const C_DIRECT_INCOME = 5;
export const C_TRANSFER_OUT = 6;
export const C_TRANSFER_IN = 7;
/** Opening balances of the GBP current, USD and EUR accounts (bank transactions only, source 0; codes 8 to 11). */
export const C_OPENING = 8;
/** What the shop paid in (its source is SHOP_BASE + its slot: core/shop-sales.ts). */
export const C_SHOP_PAYOUT = 12;

export const cashIndex = (source: number, code: number): number => source * 16 + code;
