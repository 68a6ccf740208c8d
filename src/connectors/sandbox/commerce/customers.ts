import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { u3 } from '../banking/kit/fast.js';
import { CommerceCustomer } from '../../../codat-model/commerce/catalog-schemas.js';
import { customerFields } from './customer-model.js';
import { CommercePlan, KEY } from './plan.js';

/**
 * Customers in creation order: base customers sign up evenly over the span (an order only names a customer
 * created before it), later epochs add about 1%, move or re-email about 2% and delete about 0.5% (their
 * orders then stop naming them).
 */
function* customers(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  const { cal, seed } = plan;
  const moves = plan.customerMoves;
  for (let c = 0; c < moves.total; c++) {
    const created = moves.createdAt(c);
    if (moves.deletedAt(c, created)) continue;
    const changed = moves.changedAt(c, created);
    const day = created === 0 ? plan.customerDay(c) : cal.days - 1;
    const createdLocal =
      created === 0
        ? cal.localTime(day, day === cal.days - 1 ? Math.floor(u3(seed, c, 0x71) * 3600) : Math.floor(u3(seed, c, 0x71) * 86400))
        : plan.appendedLocal(created, KEY.customers, c);
    const modified = changed ? cal.epochStamp(changed) : `${createdLocal}Z`;
    const id = plan.ids.customers.of(c);
    const { note, ...fields } = customerFields(seed, c, changed);
    yield {
      id,
      sourceModifiedDate: modified,
      data: { id, ...fields, ...(note ? { note } : {}), createdDate: createdLocal, sourceModifiedDate: modified },
    };
  }
}

export const commerceCustomers: GeneratedSource = {
  dataType: 'commerce-customers',
  typeName: 'Customer',
  schema: CommerceCustomer,
  fetch: customers,
};
