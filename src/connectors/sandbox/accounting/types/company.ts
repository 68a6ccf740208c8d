import type { SourceRecord } from '../../../connector.js';
import { BASE_CURRENCY } from '../engine/chart.js';
import { companyIdentity } from '../engine/company.js';
import type { Ctx } from '../engine/context.js';
import { lastChange } from '../engine/lifecycle.js';
import { phone } from '../engine/parties.js';
import { CompanyInfoSchema } from '../../../../codat-model/accounting/index.js';
import { epochInstant, record, source } from './shared.js';

/** Company information (`data/info`): one record, id `company`. */
function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const c = companyIdentity(ctx);
  const changed = lastChange(ctx.hs, ctx.lc.company, 0, epoch, 0);
  const created = ctx.startDay - 400;
  const modified = changed > 0 ? epochInstant(ctx, changed) : ctx.cal.instant(created, 600);
  // Financial year start on or before asOf; the ledger is locked up to the end of the quarter before last.
  const asOf = new Date(ctx.asOfDay * 86_400_000);
  let fyYear = asOf.getUTCFullYear();
  if (asOf.getUTCMonth() < ctx.fyStartMonth) fyYear--;
  const fyStart = Math.floor(Date.UTC(fyYear, ctx.fyStartMonth, 1) / 86_400_000);
  const lockDay = Math.floor(Date.UTC(asOf.getUTCFullYear(), asOf.getUTCMonth() - (asOf.getUTCMonth() % 3) - 3, 1) / 86_400_000) - 1;
  yield record('company', modified, {
    id: 'company',
    companyName: c.name,
    accountingPlatformRef: 'mqjo',
    companyLegalName: c.legalName,
    addresses: [{ type: 'Billing', ...c.address }],
    phoneNumbers: [
      { number: changed > 0 ? phone(ctx.hs, 0x0c0_4a41, 0, changed, 0) : c.phone, type: 'Primary' },
      { number: phone(ctx.hs, 0x0c0_4a41, 1, 0, 0), type: 'Mobile' },
    ],
    webLinks: [{ type: 'Website', url: `https://www.${c.domain}` }],
    ledgerLockDate: ctx.cal.local(lockDay),
    registrationNumber: c.registrationNumber,
    taxNumber: c.taxNumber,
    financialYearStartDate: ctx.cal.local(fyStart),
    baseCurrency: BASE_CURRENCY,
    sourceUrls: {},
    createdDate: ctx.cal.instant(created, 600),
    sourceModifiedDate: modified,
  });
}

export const company = source('company', 'CompanyInfo', CompanyInfoSchema, generate);
