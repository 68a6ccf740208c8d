import type { SourceRecord } from '../../../connector.js';
import { A, T } from '../engine/chart.js';
import { type Ctx, K } from '../engine/context.js';
import { guid } from '../engine/hash.js';
import { INVENTORY, MATERIAL, SERVICE, itemCode, itemCost, itemKind, itemName, itemPrice, itemSalesAccount } from '../engine/items.js';
import { ItemSchema } from '../../../../codat-model/accounting/index.js';
import { referenceRecords } from './reference.js';
import { record, source } from './shared.js';

const TYPES = ['Inventory', 'Service', 'NonInventory'] as const;

/** Items: products (bought and sold), services (sold) and materials (bought); see `engine/items.ts`. */
function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  yield* referenceRecords(ctx, ctx.lc.items, epoch, (k, modified, changed) => {
    const id = guid(ctx.seed, K.items, k);
    const kind = itemKind(k);
    const name = itemName(ctx.hs, k);
    const tax = ctx.taxRefs[T.Standard];
    return record(id, modified, {
      id,
      name,
      code: itemCode(k),
      itemStatus: 'Active',
      type: TYPES[kind],
      isBillItem: kind !== SERVICE,
      isInvoiceItem: kind !== MATERIAL,
      billItem:
        kind === SERVICE
          ? undefined
          : {
              description: changed > 0 ? `${name} (supplier price list updated)` : name,
              unitPrice: itemCost(ctx.hs, k) / 100,
              accountRef: ctx.accountRefs[A.Cogs],
              taxRateRef: tax,
            },
      invoiceItem:
        kind === MATERIAL
          ? undefined
          : {
              description: kind === INVENTORY ? `${name}, supplied boxed` : `${name}, billed per hour`,
              unitPrice: itemPrice(ctx.hs, k) / 100,
              accountRef: ctx.accountRefs[itemSalesAccount(ctx.hs, k)],
              taxRateRef: tax,
            },
      sourceModifiedDate: modified,
    });
  });
}

export const items = source('items', 'Item', ItemSchema, generate);
