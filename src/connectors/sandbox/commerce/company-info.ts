import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { digitsOf, h2 } from '../banking/kit/fast.js';
import { Calendar } from '../banking/kit/calendar.js';
import { DEFAULT_RATES, Movement } from '../banking/kit/movement.js';
import { companyName } from '../banking/kit/names.js';
import { CommerceCompanyInfo } from '../../../codat-model/commerce/catalog-schemas.js';
import { LOCATIONS } from './places.js';
import { KEY } from './plan.js';

/** The one company record (id `companyInfo`, served at `data/commerce-info`): it only ever changes. */
function* companyInfo(ctx: FetchContext): Generator<SourceRecord> {
  const { seed } = ctx.settings;
  const cal = new Calendar(ctx.settings.asOf);
  const moves = new Movement(seed, KEY.companyInfo, 1, ctx.epoch, { ...DEFAULT_RATES, growth: 0, minAdd: 0, delete: 0 });
  const changed = moves.changedAt(0, 0);
  const name = companyName(seed);
  const createdLocal = cal.localTime(-90 - (h2(seed, 0xc0) % 600), 36000);
  const modified = changed ? cal.epochStamp(changed) : `${createdLocal}Z`;
  const office = LOCATIONS[0].address;
  // A change updates the customer-service number.
  const phone = `+44 20 7946 0${digitsOf(3, h2(seed, changed))}`;
  const id = 'companyInfo';
  yield {
    id,
    sourceModifiedDate: modified,
    data: {
      id,
      companyName: name.trading,
      commercePlatformRef: `acct_${digitsOf(8, h2(seed, 0xacc))}`,
      companyLegalName: name.legal,
      addresses: [
        {
          type: 'Billing',
          line1: office.line1,
          ...(office.line2 ? { line2: office.line2 } : {}),
          city: office.city,
          region: office.region,
          country: 'United Kingdom',
          postalCode: office.postalCode,
        },
      ],
      phoneNumbers: [{ number: phone, type: 'Primary' }],
      webLinks: [
        { type: 'Website', url: `https://www.${name.slug}.example` },
        { type: 'Social', url: `https://www.instagram.com/${name.slug}` },
      ],
      registrationNumber: digitsOf(8, h2(seed, 0x5e9)),
      baseCurrency: 'GBP',
      sourceUrls: {
        orders: `https://admin.${name.slug}.example/orders`,
        products: `https://admin.${name.slug}.example/products`,
        customers: `https://admin.${name.slug}.example/customers`,
      },
      createdDate: createdLocal,
      sourceModifiedDate: modified,
    },
  };
}

export const commerceCompanyInfo: GeneratedSource = {
  dataType: 'commerce-companyInfo',
  typeName: 'CompanyInfo',
  schema: CommerceCompanyInfo,
  fetch: companyInfo,
};
