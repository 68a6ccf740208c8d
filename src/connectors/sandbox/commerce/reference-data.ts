import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { guid, u3 } from '../banking/kit/fast.js';
import type { Movement } from '../banking/kit/movement.js';
import { ancestorsOf, categoryDef, CATEGORIES } from './catalog.js';
import {
  CommerceLocation,
  CommercePaymentMethod,
  CommerceProductCategory,
  CommerceTaxComponent,
} from '../../../codat-model/commerce/catalog-schemas.js';
import { COUNTRIES } from './places.js';
import { CommercePlan, KEY } from './plan.js';

/**
 * The shop's reference data: product categories, locations, tax components and payment methods. Each is a
 * small list; later epochs add one entry (a seasonal category, a pop-up shop, a local levy, a tender) and
 * change about 2%. They are archived or closed, never deleted, so everything an order names still exists.
 */

/** Walks the records of a small type: creation stamp (before the span for base entries) and latest change. */
function* walk(
  plan: CommercePlan,
  moves: Movement,
  key: number,
): Generator<{ i: number; changed: number; modified: string; createdLocal: string }> {
  const { cal } = plan;
  for (let i = 0; i < moves.total; i++) {
    const created = moves.createdAt(i);
    const changed = moves.changedAt(i, created);
    const createdLocal =
      created === 0
        ? cal.localTime(-30 - (i % 300), 32400 + Math.floor(u3(plan.seed, i, key) * 28800))
        : plan.appendedLocal(created, key, i);
    yield { i, changed, createdLocal, modified: changed ? cal.epochStamp(changed) : `${createdLocal}Z` };
  }
}

function* productCategories(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  const parents = new Set<number>();
  for (let i = 0; i < plan.categoryMoves.total; i++) {
    const parent = categoryDef(i).parent;
    if (parent >= 0) parents.add(parent);
  }
  for (const { i, changed, modified } of walk(plan, plan.categoryMoves, KEY.categories)) {
    const def = categoryDef(i);
    const id = guid(plan.seed, KEY.categories, i);
    // A change renames a category's display name (e.g. "Tops" → "Tops & Tees").
    const name = changed && i < CATEGORIES.length && !CATEGORIES[i].leaf ? `${def.name} & More` : def.name;
    yield {
      id,
      sourceModifiedDate: modified,
      data: {
        id,
        name,
        ancestorRefs: ancestorsOf(i).map((a) => ({ id: guid(plan.seed, KEY.categories, a), type: 'ProductCategory' })),
        hasChildren: parents.has(i),
        sourceModifiedDate: modified,
      },
    };
  }
}

function* locations(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  for (const { i, changed, modified } of walk(plan, plan.locationMoves, KEY.locations)) {
    const location = plan.locations[i];
    const { address, kind, country } = location.def;
    // A change moves the shop to another unit on its street.
    const line1 = changed ? address.line1.replace(/^(\d+)/, (n) => String(Number(n) + 2)) : address.line1;
    yield {
      id: location.id,
      sourceModifiedDate: modified,
      data: {
        id: location.id,
        name: location.name,
        address: {
          type: kind === 'warehouse' ? 'Inventory' : 'Order',
          line1: changed && line1 === address.line1 ? `${address.line1} (Unit 2)` : line1,
          ...(address.line2 ? { line2: address.line2 } : {}),
          city: address.city,
          region: address.region,
          country: COUNTRIES[country].name,
          postalCode: address.postalCode,
        },
        sourceModifiedDate: modified,
      },
    };
  }
}

function* taxComponents(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  for (const { i, modified } of walk(plan, plan.taxMoves, KEY.taxComponents)) {
    const { id, name, def } = plan.taxComponents[i];
    // Rates are what orders were charged, so a change never alters them; it is a restatement of the record.
    yield {
      id,
      sourceModifiedDate: modified,
      data: { id, name, rate: def.rate, isCompound: def.isCompound, sourceModifiedDate: modified },
    };
  }
}

function* paymentMethods(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  for (const { i, changed, modified } of walk(plan, plan.methodMoves, KEY.paymentMethods)) {
    const { id, name, def } = plan.methods[i];
    // A change archives a method nobody pays with any more (methods orders use stay active).
    const unused = def.store === 0 && def.online === 0 && i !== 9;
    yield {
      id,
      sourceModifiedDate: modified,
      data: { id, name, status: def.archived || (changed && unused) ? 'Archived' : 'Active', sourceModifiedDate: modified },
    };
  }
}

export const commerceProductCategories: GeneratedSource = {
  dataType: 'commerce-productCategories',
  typeName: 'ProductCategory',
  schema: CommerceProductCategory,
  fetch: productCategories,
};
export const commerceLocations: GeneratedSource = {
  dataType: 'commerce-locations',
  typeName: 'Location',
  schema: CommerceLocation,
  fetch: locations,
};
export const commerceTaxComponents: GeneratedSource = {
  dataType: 'commerce-taxComponents',
  typeName: 'TaxComponent',
  schema: CommerceTaxComponent,
  fetch: taxComponents,
};
export const commercePaymentMethods: GeneratedSource = {
  dataType: 'commerce-paymentMethods',
  typeName: 'PaymentMethod',
  schema: CommercePaymentMethod,
  fetch: paymentMethods,
};
