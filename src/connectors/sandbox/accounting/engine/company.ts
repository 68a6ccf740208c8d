import { GBP } from './chart.js';
import type { Ctx } from './context.js';
import { r3 } from './hash.js';
import { type Person, type PostalAddress, address, domainOf, email, person, phone } from './parties.js';
import { BUSINESS_WORDS, LAST_NAMES } from './words.js';

/** The Sandbox company itself: a UK business named from its seed. */
export interface CompanyIdentity {
  name: string;
  legalName: string;
  domain: string;
  address: PostalAddress;
  phone: string;
  registrationNumber: string;
  taxNumber: string;
}

const HK = 0x0c0_4a41;

export function companyIdentity(ctx: Ctx): CompanyIdentity {
  let c = (ctx as { company?: CompanyIdentity }).company;
  if (!c) {
    const h = r3(ctx.hs, HK, 0);
    const name = `${LAST_NAMES[h % LAST_NAMES.length]} ${BUSINESS_WORDS[(h >>> 8) % BUSINESS_WORDS.length]}`;
    c = {
      name,
      legalName: `${name} Limited`,
      domain: domainOf(name, GBP),
      address: address(ctx.hs, HK, 0, 0, GBP),
      phone: phone(ctx.hs, HK, 0, 0, GBP),
      registrationNumber: String(10_000_000 + (r3(ctx.hs, HK, 1) % 9_000_000)).padStart(8, '0'),
      taxNumber: `GB${String(100_000_000 + (r3(ctx.hs, HK, 2) % 900_000_000))}`,
    };
    (ctx as { company?: CompanyIdentity }).company = c;
  }
  return c;
}

/** One of the company's dozen staff (who raise purchase orders). */
export function staff(ctx: Ctx, k: number): Person & { email: string } {
  const p = person(ctx.hs, HK, k % 12, 7);
  return { ...p, email: email(p, companyIdentity(ctx).domain) };
}
