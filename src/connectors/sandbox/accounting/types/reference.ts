import type { SourceRecord } from '../../../connector.js';
import { NA, ledgerOf } from '../core/ledger.js';
import { CORE_ACCOUNTS, CORE_BANKS, CORE_JOURNALS, CORE_PAYMENT_METHODS, CORE_TAX_RATES, CORE_TRACKING, T } from '../engine/chart.js';
import { type Ctx, K } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { type Lifecycle, countAt, createdEpoch, deletedEpoch, lastChange } from '../engine/lifecycle.js';
import {
  AccountSchema,
  JournalSchema,
  PaymentMethodSchema,
  TaxRateSchema,
  TrackingCategorySchema,
} from '../../../../codat-model/accounting/index.js';
import { currencyCode, epochInstant, modifiedAt, record, setupDay, source } from './shared.js';

/**
 * Reference data: the core set every company has (never deleted: documents refer to it) plus records added
 * at later epochs (nothing refers to them, so they may be deleted).
 */
export function* referenceRecords(
  ctx: Ctx,
  lc: Lifecycle,
  epoch: number,
  build: (index: number, modified: string, changed: number) => SourceRecord,
  extraChange: (index: number) => number = () => 0,
): Generator<SourceRecord> {
  const count = countAt(lc, epoch);
  for (let index = 0; index < count; index++) {
    if (deletedEpoch(ctx.hs, lc, index, index >= lc.base, epoch) <= epoch) continue;
    const created = createdEpoch(lc, index);
    const changed = Math.max(lastChange(ctx.hs, lc, index, epoch, created), extraChange(index));
    yield build(index, modifiedAt(ctx, setupDay(ctx, lc.hk, index), created, changed, r3(ctx.hs, lc.hk, index)), changed);
  }
}

const EXTRA_ACCOUNTS = [
  'Staff Training',
  'Subscriptions and Memberships',
  'Charitable Donations',
  'Postage and Courier',
  'Cleaning',
  'Recruitment Fees',
  'Vehicle Expenses',
  'Research and Development',
  'Equipment Hire',
  'Sundry Expenses',
];

function extraName(list: readonly string[], n: number): string {
  const round = Math.floor(n / list.length);
  return round === 0 ? list[n % list.length] : `${list[n % list.length]} ${round + 1}`;
}

function* accounts(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const ledger = ledgerOf(ctx, epoch);
  const balance = new Float64Array(NA);
  for (let m = 0; m < ledger.months; m++) for (let a = 0; a < NA; a++) balance[a] += ledger.movement[m * NA + a];
  yield* referenceRecords(
    ctx,
    ctx.lc.accounts,
    epoch,
    (a, modified) => {
      const id = guid(ctx.seed, K.chartOfAccounts, a);
      const core = a < CORE_ACCOUNTS.length ? CORE_ACCOUNTS[a] : undefined;
      const n = a - CORE_ACCOUNTS.length;
      const bank = CORE_BANKS.findIndex((b) => b[1] === a);
      const name = core ? core.name : extraName(EXTRA_ACCOUNTS, n);
      const category = core ? core.category : 'Expense.Operating.Other';
      const cents = !core ? 0 : bank >= 0 && core.currency !== 0 ? ledger.bankNative[bank] : balance[a];
      return record(id, modified, {
        id,
        nominalCode: core ? core.code : String(6500 + n),
        name,
        description: core ? core.description : `${name} (added ${ctx.asOf})`,
        fullyQualifiedCategory: category,
        fullyQualifiedName: `${category}.${name}`,
        currency: currencyCode(core ? core.currency : 0),
        currentBalance: cents / 100,
        type: core ? core.type : 'Expense',
        status: 'Active',
        isBankAccount: bank >= 0,
        sourceModifiedDate: modified,
      });
    },
    (a) => (a < NA ? ledger.accountLast[a] : 0),
  );
}

function* taxRates(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  yield* referenceRecords(ctx, ctx.lc.taxRates, epoch, (t, modified) => {
    const id = guid(ctx.seed, K.taxRates, t);
    const core = t < CORE_TAX_RATES.length ? CORE_TAX_RATES[t] : undefined;
    const n = t - CORE_TAX_RATES.length;
    const rate = core ? core[2] : 12.5;
    return record(id, modified, {
      id,
      name: core ? core[0] : `Special Rate ${n + 1}`,
      code: core ? core[1] : `SP${n + 1}`,
      status: 'Active',
      effectiveTaxRate: rate,
      totalTaxRate: rate,
      components: [{ name: t === T.Exempt || t === T.NoVat ? 'None' : 'VAT', rate, isCompound: false }],
      validDatatypeLinks: [{ property: 'Id', links: ['Invoice.LineItems.TaxRateRef.Id', 'Bill.LineItems.TaxRateRef.Id'] }],
      sourceModifiedDate: modified,
    });
  });
}

function* trackingCategories(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  yield* referenceRecords(ctx, ctx.lc.trackingCategories, epoch, (t, modified) => {
    const id = guid(ctx.seed, K.trackingCategories, t);
    const core = t < CORE_TRACKING.length ? CORE_TRACKING[t] : undefined;
    const parent = core ? core[1] : 0;
    return record(id, modified, {
      id,
      name: core ? core[0] : `Project ${String.fromCharCode(65 + ((t - CORE_TRACKING.length) % 26))}${t}`,
      status: 'Active',
      parentId: parent >= 0 ? ctx.trackingRefs[parent].id : undefined,
      hasChildren: parent < 0,
      sourceModifiedDate: modified,
    });
  });
}

function* paymentMethods(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  yield* referenceRecords(ctx, ctx.lc.paymentMethods, epoch, (p, modified) => {
    const id = guid(ctx.seed, K.paymentMethods, p);
    const core = p < CORE_PAYMENT_METHODS.length ? CORE_PAYMENT_METHODS[p] : undefined;
    return record(id, modified, {
      id,
      name: core ? core[0] : `Payment Method ${p + 1}`,
      type: core ? core[1] : 'Other',
      status: 'Active',
      sourceModifiedDate: modified,
    });
  });
}

function* journals(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const lc = ctx.lc.journals;
  yield* referenceRecords(ctx, lc, epoch, (j, modified) => {
    const id = guid(ctx.seed, K.journals, j);
    const core = j < CORE_JOURNALS.length ? CORE_JOURNALS[j] : undefined;
    const n = j - CORE_JOURNALS.length + 1;
    const created = createdEpoch(lc, j);
    return record(id, modified, {
      id,
      journalCode: core ? core[1] : `AJ${n}`,
      name: core ? core[0] : `Adjustments Journal ${n}`,
      type: core ? core[2] : 'General',
      hasChildren: false,
      createdOn: created > 0 ? epochInstant(ctx, created) : ctx.cal.instant(setupDay(ctx, lc.hk, j), 540),
      status: 'Active',
      sourceModifiedDate: modified,
    });
  });
}

export const chartOfAccounts = source('chartOfAccounts', 'Account', AccountSchema, accounts);
export const taxRatesSource = source('taxRates', 'TaxRate', TaxRateSchema, taxRates);
export const trackingCategoriesSource = source('trackingCategories', 'TrackingCategory', TrackingCategorySchema, trackingCategories);
export const paymentMethodsSource = source('paymentMethods', 'PaymentMethod', PaymentMethodSchema, paymentMethods);
export const journalsSource = source('journals', 'Journal', JournalSchema, journals);
