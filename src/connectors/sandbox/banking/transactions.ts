import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { categoryName } from './category-tree.js';
import { guid, Ids, u2, u3 } from './kit/fast.js';
import { coreOf, DRAW, newCore, referenceOf } from './ledger.js';
import { BankingPlan, DERIVED_BASE, KEY, SLOTS_PER_MONTH, type AccountPlan } from './plan.js';
import { BankingTransaction } from '../../../codat-model/banking/schemas.js';
import { counterparties, type Template } from './templates.js';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** Statement text with its placeholders resolved. */
function describe(tpl: Template, party: string, ref: string): string {
  const parts = tpl.parts;
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) out += (parts[i] === 'n' ? ref : party) + parts[i + 1];
  return out;
}

interface Fields {
  description: string;
  cents: number;
  posted: string;
  authorized: string;
  code: string;
  merchant: string | null;
  category: string;
  categoryName: string;
  modified: string;
}

function record(id: string, account: AccountPlan, f: Fields): SourceRecord {
  return {
    id,
    sourceModifiedDate: f.modified,
    data: {
      id,
      accountId: account.id,
      description: f.description,
      amount: f.cents / 100,
      currency: account.kind.currency,
      postedDate: f.posted,
      authorizedDate: f.authorized,
      code: f.code,
      merchantName: f.merchant,
      transactionCategoryRef: { id: f.category, name: f.categoryName },
      sourceModifiedDate: f.modified,
    },
  };
}

/**
 * Every transaction: first the day-to-day ones in date order, then the derived month-end postings (recurring
 * bills, interest, card repayments, savings transfers and treasury sweeps) whose amounts close each period
 * at its target balance. Sums per account and period are the only state kept (accounts × periods numbers).
 */
function* transactions(ctx: FetchContext): Generator<SourceRecord> {
  const plan = new BankingPlan(ctx);
  const { cal, seed } = plan;
  const n = plan.accounts.length;
  const sums = new Float64Array(n * Math.max(1, plan.periods));
  const touched = new Int32Array(n * Math.max(1, plan.periods));
  const parties = plan.accounts.map((a) => counterparties(a.kind.currency));
  const core = newCore();
  const ids = new Ids(seed, KEY.transactions);
  const fields: Fields = {
    description: '',
    cents: 0,
    posted: '',
    authorized: '',
    code: '',
    merchant: null,
    category: '',
    categoryName: '',
    modified: '',
  };
  const total = plan.txnMoves.total;
  for (let t = 0; t < total; t++) {
    coreOf(plan, t, core);
    const p = core.created === 0 ? plan.periodOfMonth(cal.monthOf(core.day)) : -1;
    const slot = core.account * plan.periods + p;
    if (core.deleted) {
      if (p >= 0 && core.deleted > touched[slot]) touched[slot] = core.deleted;
      continue;
    }
    if (p >= 0) sums[slot] += core.cents;
    const account = plan.accounts[core.account];
    const tpl = account.templates[core.template];
    const changed = plan.txnMoves.changedAt(t, core.created);
    let party = '';
    let merchant = tpl.merchant;
    if (merchant === '{c}' || merchant === '{s}') {
      const names = parties[core.account];
      const pick = Math.floor(u2(seed ^ DRAW.party, t) * (merchant === '{c}' ? names.customers.length : names.suppliers.length));
      party = merchant === '{c}' ? names.customersUpper[pick] : names.suppliersUpper[pick];
      merchant = merchant === '{c}' ? names.customers[pick] : names.suppliers[pick];
    }
    const lag = core.created === 0 ? Math.floor(u2(seed ^ DRAW.lag, t) * (tpl.authLagDays + 1)) : 0;
    const id = ids.of(t);
    const created = core.created === 0 ? cal.created(core.day, Math.floor(u2(seed ^ DRAW.time, t) * 86400)) : cal.epochStamp(core.created);
    fields.description = describe(tpl, party, referenceOf(plan, t));
    fields.cents = core.cents;
    fields.posted = cal.local(core.day);
    fields.authorized = lag ? cal.local(core.day - lag) : fields.posted;
    fields.code = tpl.code;
    fields.merchant = merchant;
    fields.category = changed ? tpl.altCategory : tpl.category;
    fields.categoryName = changed ? tpl.altCategoryName : tpl.categoryName;
    fields.modified = cal.modified(created, changed);
    yield record(id, account, fields);
  }
  yield* derived(plan, sums, touched);
}

function* derived(plan: BankingPlan, sums: Float64Array, touched: Int32Array): Generator<SourceRecord> {
  const { cal, seed } = plan;
  const sumOf = (a: number, p: number) => sums[a * plan.periods + p];
  const touchedOf = (a: number, p: number) => touched[a * plan.periods + p];
  const cardFunding = (card: AccountPlan, p: number) => sumOf(card.index, p);
  for (let m = 0; m < cal.months; m++) {
    const label = `${MONTHS[Number(cal.day(cal.monthStart[m]).slice(5, 7)) - 1]} ${cal.day(cal.monthStart[m]).slice(0, 4)}`;
    const end = cal.monthEnd(m);
    const p = plan.periodOfMonth(m);
    for (const [slot, kind, accountIndex, extra] of plan.derivedSlots(m)) {
      const a = plan.accounts[accountIndex];
      const id = guid(seed, KEY.transactions, DERIVED_BASE + m * SLOTS_PER_MONTH + slot);
      const funder = a.fundedBy >= 0 ? plan.accounts[a.fundedBy] : a;
      const at = (day: number, seconds: number, changed = 0) => ({
        posted: cal.local(day),
        authorized: cal.local(day),
        modified: cal.modified(cal.created(day, seconds), changed),
      });
      switch (kind) {
        case 'recurring': {
          const item = a.recurring[extra].item;
          const day = plan.recurringDay(item, m);
          yield record(id, a, {
            description: item.description.replace('{m}', label),
            cents: -plan.recurringAmount(a, extra, m),
            ...at(day, 3600 + Math.floor(u3(seed, slot, m) * 14400)),
            code: item.code,
            merchant: item.merchant,
            category: item.category,
            categoryName: categoryName(item.category),
          });
          break;
        }
        case 'interest':
          yield record(id, a, {
            description: `GROSS INTEREST ${label}`,
            cents: plan.interest(a, m),
            ...at(end, 82800),
            code: 'Interest',
            merchant: null,
            category: 'income-interest',
            categoryName: categoryName('income-interest'),
          });
          break;
        case 'card':
        case 'cardFunding': {
          const cents = -cardFunding(a, p);
          const card = kind === 'card';
          yield record(id, card ? a : funder, {
            description: card ? 'DIRECT DEBIT PAYMENT - THANK YOU' : `DIRECT DEBIT ${a.name.toUpperCase()} ${label}`,
            cents: card ? cents : -cents,
            ...at(end, 79200, touchedOf(a.index, p)),
            code: card ? 'Payment' : 'DirectDebit',
            merchant: null,
            category: 'transfers-card-repayment',
            categoryName: categoryName('transfers-card-repayment'),
          });
          break;
        }
        case 'savings':
        case 'savingsFunding': {
          const cents = plan.savingsTransfer(a, p);
          const inward = kind === 'savings';
          const other = inward ? funder : a;
          const sign = inward ? cents : -cents;
          yield record(id, inward ? a : funder, {
            description: `${sign >= 0 ? 'TRANSFER FROM' : 'TRANSFER TO'} ${other.name.toUpperCase()}`,
            cents: sign,
            ...at(end, 79500),
            code: 'Transfer',
            merchant: null,
            category: 'transfers-internal',
            categoryName: categoryName('transfers-internal'),
          });
          break;
        }
        case 'sweep': {
          let cents = plan.target(a, p) - plan.target(a, p - 1) - sumOf(a.index, p);
          let changed = touchedOf(a.index, p);
          for (let mm = p * plan.period; mm <= m; mm++) {
            a.recurring.forEach((r, i) => {
              if (plan.recurringDay(r.item, mm) <= cal.days - 1) cents += plan.recurringAmount(a, i, mm);
            });
          }
          for (const other of plan.accounts) {
            if (other.fundedBy !== a.index || other.createdEpoch > 0) continue;
            if (other.kind.role === 'card') {
              cents -= sumOf(other.index, p);
              changed = Math.max(changed, touchedOf(other.index, p));
            } else cents += plan.savingsTransfer(other, p);
          }
          yield record(id, a, {
            description: `${cents >= 0 ? 'SWEEP FROM' : 'SWEEP TO'} TREASURY RESERVE ${label}`,
            cents,
            ...at(end, 84600, changed),
            code: 'Transfer',
            merchant: null,
            category: 'transfers-treasury',
            categoryName: categoryName('transfers-treasury'),
          });
          break;
        }
      }
    }
  }
}

export const bankingTransactions: GeneratedSource = {
  dataType: 'banking-transactions',
  typeName: 'Transaction',
  schema: BankingTransaction,
  fetch: transactions,
};
