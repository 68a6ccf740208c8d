import { SANDBOX_AUTHORIZATION, linkSandbox } from '../authorization.js';
import { sandboxSources, type SandboxConnector } from '../generated-source.js';
import { platformConnector } from '../../platform-connector.js';
import { COMMERCE_SANDBOX } from './platform.js';
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
export const commerceSandbox: SandboxConnector = platformConnector(COMMERCE_SANDBOX, {
  // Every record is a pure function of the settings, the epoch and the writes kept for it (docs/sandbox.md).
  repeatableReads: true,
  authorization: SANDBOX_AUTHORIZATION,
  link: linkSandbox,
  sandbox: true,
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
});
