import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { OrderState } from './order-model.js';
import { paymentRef } from './orders.js';
import { CommercePlan } from './plan.js';
import { ProductCache } from './product-model.js';
import { CommercePayment } from '../../../codat-model/commerce/schemas.js';

/**
 * Payments of every live order, in order then slot order (ids are `<order id>-p1`, `-p2` when a gift card
 * covers part of the order, and `-r1` for a refund). An order's payments sum to its
 * `totalAmount`; the order embeds the same payments in `payments[]`. A payment goes with its order.
 */
function* payments(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new CommercePlan(ctx);
  const order = new OrderState(plan, new ProductCache(plan));
  const total = plan.orderMoves.total;
  for (let o = 0; o < total; o++) {
    if (plan.orderMoves.deletedAt(o)) continue;
    order.fill(o);
    const orderId = plan.ids.orders.of(o);
    for (let i = 0; i < order.paymentCount; i++) {
      const ref = paymentRef(plan, order, orderId, i);
      const method = plan.methods[order.payMethod[i]];
      const changed = order.payChanged[i];
      const modified = changed ? plan.cal.epochStamp(changed) : `${order.payCreated[i]}Z`;
      const data: Record<string, unknown> = {
        id: ref.id,
        amount: ref.amount,
        currency: ref.currency,
        paymentMethodRef: method.ref,
        status: ref.status,
        dueDate: ref.dueDate,
        createdDate: ref.createdDate,
        sourceModifiedDate: modified,
      };
      if (ref.paymentProvider) data.paymentProvider = ref.paymentProvider;
      yield { id: ref.id, sourceModifiedDate: modified, data };
    }
  }
}

export const commercePayments: GeneratedSource = {
  dataType: 'commerce-payments',
  typeName: 'Payment',
  schema: CommercePayment,
  fetch: payments,
};
