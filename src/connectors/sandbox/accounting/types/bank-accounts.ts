import type { SourceRecord } from '../../../connector.js';
import { ledgerOf } from '../core/ledger.js';
import { CORE_ACCOUNTS, CORE_BANKS, EUR, GBP } from '../engine/chart.js';
import { type Ctx, K } from '../engine/context.js';
import { guid, r3 } from '../engine/hash.js';
import { BankAccountSchema } from '../../../../codat-model/accounting/index.js';
import { referenceRecords } from './reference.js';
import { currencyCode, pad, record, source } from './shared.js';

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
      const h = r3(ctx.hs, lc.hk, b);
      const sortCode = `${pad(20 + (h % 60), 2)}-${pad((h >>> 7) % 100, 2)}-${pad((h >>> 14) % 100, 2)}`;
      const accountNumber = pad((h >>> 2) % 100_000_000, 8);
      const balance = core ? ledger.bankNative[b] / 100 : 0;
      const limit = core ? core[5] : 0;
      const credit = core?.[3] === 'Credit';
      return record(id, modified, {
        id,
        accountName: core ? core[0] : `Deposit Account ${b - CORE_BANKS.length + 1}`,
        accountType: credit ? 'Credit' : 'Debit',
        nominalCode: core ? CORE_ACCOUNTS[core[1]].code : String(1250 + b),
        sortCode: cur === GBP ? sortCode : undefined,
        accountNumber: credit ? `**** **** **** ${accountNumber.slice(4)}` : accountNumber,
        iBan: credit
          ? undefined
          : cur === EUR
            ? `IE${pad(h % 100, 2)}HSBC${sortCode.replace(/-/g, '')}${accountNumber}`
            : `GB${pad(h % 100, 2)}BARC${sortCode.replace(/-/g, '')}${accountNumber}`,
        currency: currencyCode(cur),
        balance,
        institution: core ? core[4] : 'Barclays',
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
