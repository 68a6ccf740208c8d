import { SANDBOX_AUTHORIZATION, linkSandbox } from '../authorization.js';
import { sandboxSources, type SandboxConnector } from '../generated-source.js';
import { COMMERCE_DATA_TYPES } from '../../../codat-model/data-types.js';
import { commerceCompanyInfo } from './company-info.js';
import { commerceCustomers } from './customers.js';
import { commerceDisputes } from './disputes.js';
import { commerceOrders } from './orders.js';
import { commercePayments } from './payments.js';
import { commerceProducts } from './products.js';
import { commerceLocations, commercePaymentMethods, commerceProductCategories, commerceTaxComponents } from './reference-data.js';
import { commerceTransactions } from './transactions.js';

/**
 * The built-in commerce Sandbox (`aiwb`): a London apparel and homeware shop selling online and in stores in
 * GBP, USD and EUR, with three years of orders up to `asOf`, generated on demand from the connection's seed.
 * See docs/sandbox-banking-commerce.md.
 */
export const commerceSandbox: SandboxConnector = {
  authorization: SANDBOX_AUTHORIZATION,
  link: linkSandbox,
  info: { key: 'aiwb', name: 'Commerce Sandbox', sourceType: 'Commerce', dataTypes: COMMERCE_DATA_TYPES, brandColour: '#7b3fe4' },
  dataTypes: sandboxSources([
    commerceCompanyInfo,
    commerceCustomers,
    commerceDisputes,
    commerceLocations,
    commerceOrders,
    commercePaymentMethods,
    commercePayments,
    commerceProductCategories,
    commerceProducts,
    commerceTaxComponents,
    commerceTransactions,
  ]),
};
