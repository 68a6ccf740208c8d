import type { SourceRecord } from '../../../connector.js';
import { ledgerOf } from '../core/ledger.js';
import { CORE_ACCOUNTS, CORE_BANKS, GBP } from '../engine/chart.js';
import { bookAccountIdentity } from '../../banking/account-kinds.js';
import { type Ctx, K } from '../engine/context.js';
import { guid } from '../engine/hash.js';
import { BankAccountSchema } from '../../../../codat-model/accounting/index.js';
import { referenceRecords } from './reference.js';
import { currencyCode, record, source } from './shared.js';

/**
 * Bank accounts: the five core accounts (GBP current and savings, USD, EUR, a GBP credit card), whose balance
 * is the sum of their bank transactions at the epoch, and deposit accounts opened at later epochs (no
 * transactions, balance 0).
 */
function* generate(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const ledger = ledgerOf(ctx, epoch);
  const lc = ctx.lc.bankAccounts;
  yield* referenceRecords(
    ctx,
    lc,
    epoch,
    (b, modified) => {
      const id = guid(ctx.seed, K.bankAccounts, b);
      const core = b < CORE_BANKS.length ? CORE_BANKS[b] : undefined;
      const cur = core ? core[2] : GBP;
      // The same account the company's Banking Sandbox serves: its bank, number, sort code and IBAN.
      const { institution, identifiers } = bookAccountIdentity(ctx.seed, b);
      const balance = core ? ledger.bankNative[b] / 100 : 0;
      const limit = core ? core[5] : 0;
      const credit = core?.[3] === 'Credit';
      return record(id, modified, {
        id,
        accountName: core ? core[0] : `Deposit Account ${b - CORE_BANKS.length + 1}`,
        accountType: credit ? 'Credit' : 'Debit',
        nominalCode: core ? CORE_ACCOUNTS[core[1]].code : String(1250 + b),
        sortCode: cur === GBP ? (identifiers.bankCode ?? undefined) : undefined,
        accountNumber: credit ? identifiers.maskedAccountNumber : (identifiers.number ?? undefined),
        iBan: identifiers.iban?.replace(/\s+/g, '') ?? undefined,
        currency: currencyCode(cur),
        balance,
        institution: institution.name,
        availableBalance: Math.round((balance + limit) * 100) / 100,
        overdraftLimit: limit,
        status: 'Active',
        sourceModifiedDate: modified,
      });
    },
    (b) => (b < CORE_BANKS.length ? ledger.bankLast[b] : 0),
  );
}

export const bankAccounts = source('bankAccounts', 'BankAccount', BankAccountSchema, generate);
