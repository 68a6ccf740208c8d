import type { SourceRecord } from '../../../connector.js';
import { type Ctx, K } from '../engine/context.js';
import { guid } from '../engine/hash.js';
import { countAt, createdEpoch, deletedEpoch, lastChange } from '../engine/lifecycle.js';
import {
  address,
  currencyOf,
  domainOf,
  email,
  isProspect,
  partyBits,
  partyName,
  person,
  phone,
  registrationNumber,
  taxNumber,
} from '../engine/parties.js';
import { CustomerSchema, SupplierSchema } from '../../../../codat-model/accounting/index.js';
import { currencyCode, modifiedAt, record, setupDay, source } from './shared.js';

/**
 * Customers and suppliers. Names never change (documents quote them); a change moves the contact person,
 * email and phone. Only prospects (never on a document) are ever deleted.
 */
function* generate(ctx: Ctx, epoch: number, customers: boolean): Generator<SourceRecord> {
  const lc = customers ? ctx.lc.customers : ctx.lc.suppliers;
  const key = customers ? K.customers : K.suppliers;
  const { hs, seed } = ctx;
  const count = countAt(lc, epoch);
  for (let c = 0; c < count; c++) {
    const bits = partyBits(hs, lc.hk, c);
    const deleted = deletedEpoch(hs, lc, c, isProspect(bits, c), epoch);
    if (deleted <= epoch) continue;
    const created = createdEpoch(lc, c);
    const changed = lastChange(hs, lc, c, epoch, created);
    const cur = currencyOf(bits, customers);
    const name = partyName(hs, lc.hk, c, cur);
    const contact = person(hs, lc.hk, c, changed);
    const mail = email(contact, domainOf(name, cur));
    const tel = phone(hs, lc.hk, c, changed, cur);
    const billing = { type: 'Billing', ...address(hs, lc.hk, c, 0, cur) };
    const addresses = (bits >>> 24) % 5 < 2 ? [billing, { type: 'Delivery', ...address(hs, lc.hk, c, 1, cur) }] : [billing];
    const id = guid(seed, key, c);
    const modified = modifiedAt(ctx, setupDay(ctx, lc.hk, c), created, changed, bits);
    const status = !isProspect(bits, c) && (bits >>> 26) % 16 === 0 ? 'Archived' : 'Active';
    const data: Record<string, unknown> = customers
      ? {
          id,
          customerName: name,
          contactName: contact.name,
          emailAddress: mail,
          phone: tel,
          defaultCurrency: currencyCode(cur),
          addresses,
          contacts: [{ name: contact.name, email: mail, phone: [{ number: tel, type: 'Primary' }], address: billing, status: 'Active' }],
          registrationNumber: registrationNumber(hs, lc.hk, c),
          taxNumber: taxNumber(hs, lc.hk, c, cur),
          status,
          sourceModifiedDate: modified,
        }
      : {
          id,
          supplierName: name,
          contactName: contact.name,
          emailAddress: mail,
          phone: tel,
          addresses,
          registrationNumber: registrationNumber(hs, lc.hk, c),
          taxNumber: taxNumber(hs, lc.hk, c, cur),
          status,
          defaultCurrency: currencyCode(cur),
          sourceModifiedDate: modified,
        };
    yield record(id, modified, data);
  }
}

export const customers = source('customers', 'Customer', CustomerSchema, (ctx, epoch) => generate(ctx, epoch, true));
export const suppliers = source('suppliers', 'Supplier', SupplierSchema, (ctx, epoch) => generate(ctx, epoch, false));
