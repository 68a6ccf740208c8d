import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { u3 } from '../banking/kit/fast.js';
import { CATEGORIES } from './catalog.js';
import { CommerceProduct } from '../../../codat-model/commerce/catalog-schemas.js';
import { CURRENCIES, TAX_COMPONENTS, componentsFor } from './places.js';
import { CommercePlan, KEY } from './plan.js';
import { barcodeOf, productSummary, stockOf } from './product-model.js';

const DESIGNED = 'Designed in London, made to last.';

/**
 * Products with their variants (sizes and colours), prices in GBP, USD and EUR, and stock per store and
 * warehouse. Orders only sell products created before them; a deleted product's order lines lose their
 * product references. A change restocks the product (new quantities).
 */
function* products(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  const { cal, seed } = plan;
  const moves = plan.productMoves;
  const stockists = plan.locations.filter((l) => l.def.kind !== 'online');
  for (let p = 0; p < moves.total; p++) {
    const created = moves.createdAt(p);
    if (moves.deletedAt(p, created)) continue;
    const changed = moves.changedAt(p, created);
    const summary = productSummary(plan, p);
    const leaf = CATEGORIES[summary.category].leaf!;
    const day = created === 0 ? plan.productDay(p) : cal.days - 1;
    const createdLocal =
      created === 0 ? cal.localTime(day, 32400 + Math.floor(u3(seed, p, 0x71) * 28800)) : plan.appendedLocal(created, KEY.products, p);
    const modified = changed ? cal.epochStamp(changed) : `${createdLocal}Z`;
    const vat = componentsFor('GB', summary.taxClass).reduce((s, c) => s + TAX_COMPONENTS[c].rate * 100, 0);
    // Stock is listed where the product was stocked as of its last change: a shop opened later gets it at a restock.
    const stockedAt = Math.max(created, changed);
    const stocking = stockists.filter((l) => l.createdEpoch <= stockedAt);
    const variants = summary.variants.map((variant, v) => {
      const locations = summary.isGiftCard
        ? []
        : stocking.map((l) => ({
            quantity: summary.discontinued ? 0 : stockOf(seed, p, v, l.index, l.def.kind === 'warehouse', changed),
            locationRef: { id: l.id, name: l.name },
          }));
      return {
        id: variant.id,
        name: variant.name,
        isTaxEnabled: summary.taxClass !== 'none',
        sku: `${leaf.code}-${p.toString(36).toUpperCase().padStart(4, '0')}-${String(v + 1).padStart(2, '0')}`,
        barcode: barcodeOf(seed, p, v),
        unitOfMeasure: 'each',
        vatPercentage: vat,
        prices: variant.prices.map((cents, c) => ({ currency: CURRENCIES[c], unitPrice: cents / 100 })),
        inventory: {
          totalQuantity: summary.isGiftCard ? null : locations.reduce((s, l) => s + l.quantity, 0),
          locations,
        },
        shippingRequired: !summary.isGiftCard,
        status: summary.discontinued ? 'Unpublished' : 'Published',
        createdDate: createdLocal,
        sourceModifiedDate: modified,
      };
    });
    yield {
      id: summary.id,
      sourceModifiedDate: modified,
      data: {
        id: summary.id,
        name: summary.name,
        description: summary.isGiftCard
          ? `A ${summary.name.toLowerCase()} to spend online or in store. ${leaf.care}`
          : `${summary.name} in ${summary.material.toLowerCase()}. ${leaf.care} ${DESIGNED}`,
        categorization: CATEGORIES[summary.category].name,
        isGiftCard: summary.isGiftCard,
        variants,
        sourceModifiedDate: modified,
      },
    };
  }
}

export const commerceProducts: GeneratedSource = {
  dataType: 'commerce-products',
  typeName: 'Product',
  schema: CommerceProduct,
  fetch: products,
};
