import { defined, num, str, type Data } from '../source-kit.js';
import { qboDate, qboInstant, type QboEntity } from './qbo-api.js';
import { isVoided } from './qbo-records.js';

/*
 * The money that moved through a QuickBooks company's bank and credit card accounts, as Codat's bank accounts and
 * account transactions (docs/connectors/quickbooks.md, "Bank accounts and account transactions"). QuickBooks has no
 * one resource for it: each kind of transaction names the bank account it moved money through in its own field.
 */

/** The account types QuickBooks keeps bank and card statements for: what Codat calls bank accounts. */
export const BANK_ACCOUNT_TYPES = ['Bank', 'Credit Card'] as const;

/** Account (of type Bank or Credit Card) → `bankAccounts`. A card is Credit, what it owes a negative balance. */
export function bankAccountRecord(x: QboEntity): Data {
  const card = x.AccountType === 'Credit Card';
  const balance = num(x.CurrentBalance);
  return defined({
    accountName: str(x.Name),
    accountType: card ? 'Credit' : 'Debit',
    nominalCode: str(x.AcctNum),
    accountNumber: str(x.BankNum),
    currency: str(x.CurrencyRef?.value),
    // QuickBooks keeps a card's balance as what is owed (a liability, positive): the bank's view is the opposite.
    balance: balance === undefined ? undefined : card ? -balance : balance,
    status: x.Active === false ? 'Archived' : 'Active',
  });
}

/** What a reader knows of the company to place a movement: its bank accounts by Id, and the home currency. */
export interface MovementContext {
  bankAccounts: ReadonlyMap<string, QboEntity>;
  homeCurrency: string | undefined;
}

/** One side of a transaction through one bank account: the Codat account transaction it is. */
interface Side {
  /**
   * The account transaction's id: `{Entity}-{Id}`; a transfer's sides add `-From` and `-To`, a deposit's cash back
   * `-CashBack`.
   */
  id: string;
  account: QboEntity | undefined;
  /** Money into the account positive, out negative. */
  amount: number;
  description: string | undefined;
  recordRef: Data;
  /** The lines, where the side carries more than one record (a deposit); else one line of the whole amount. */
  lines?: Data[];
}

/** The entities read for account transactions, with how each moves money through a bank account. */
export const MOVEMENT_ENTITIES = [
  'Payment',
  'BillPayment',
  'Deposit',
  'Purchase',
  'Transfer',
  'SalesReceipt',
  'RefundReceipt',
  'CreditCardPayment',
  'JournalEntry',
] as const;
export type MovementEntity = (typeof MOVEMENT_ENTITIES)[number];

/**
 * Where a query's answer holds an entity's records, when not under its own name: a credit card payment is queried as
 * `CreditCardPayment` and answered as `CreditCardPaymentTxn` (its name in Intuit's schema).
 */
export const ANSWER_NAME: Partial<Record<MovementEntity, string>> = { CreditCardPayment: 'CreditCardPaymentTxn' };

/**
 * Data types Ledgerport's QuickBooks connector does not serve yet, named by `recordRef`: their ids carry the entity
 * (as the account transactions' do), since a Deposit and a SalesReceipt are both direct incomes.
 */
const UNSERVED = new Set(['directIncomes', 'directCosts', 'transfers']);

const first = (...texts: unknown[]): string | undefined => texts.map(str).find((t) => t !== undefined && t.trim() !== '');

/**
 * The sides of one transaction that went through a bank or credit card account (none when it went elsewhere, e.g. a
 * payment into Undeposited Funds, which reaches the bank with the deposit that takes it there).
 */
export function movementSides(entity: MovementEntity, x: QboEntity, ctx: MovementContext): Side[] {
  const id = String(x.Id);
  const total = num(x.TotalAmt) ?? 0;
  const bank = (reference: QboEntity | undefined) => ctx.bankAccounts.get(String(reference?.value ?? ''));
  const side = (account: QboEntity | undefined, amount: number, description: string | undefined, dataType: string, suffix = ''): Side[] =>
    account
      ? [
          {
            id: `${entity}-${id}${suffix}`,
            account,
            amount: inAccountCurrency(amount, x, account, ctx),
            description,
            recordRef: { id: UNSERVED.has(dataType) ? `${entity}-${id}` : id, dataType },
          },
        ]
      : [];
  switch (entity) {
    case 'Payment':
      return side(bank(x.DepositToAccountRef), total, first(x.PaymentRefNum, x.PrivateNote, x.CustomerRef?.name), 'payments');
    case 'BillPayment':
      return side(
        bank(x.CheckPayment?.BankAccountRef ?? x.CreditCardPayment?.CCAccountRef),
        -total,
        first(x.DocNumber, x.PrivateNote, x.VendorRef?.name),
        'billPayments',
      );
    case 'Deposit': {
      // TotalAmt is what reached the account: the lines less any cash taken back, which went to an account of its own
      // (petty cash, when that is a bank account: a movement of its own).
      const description = first(x.PrivateNote, ...lineDescriptions(x));
      const cashBack = num(x.CashBack?.Amount) ?? 0;
      const deposited = side(bank(x.DepositToAccountRef), total, description, 'directIncomes');
      for (const d of deposited) d.lines = depositLines(x, id, cashBack);
      return [
        ...deposited,
        ...side(bank(x.CashBack?.AccountRef), cashBack, first(x.CashBack?.Memo) ?? description, 'directIncomes', '-CashBack'),
      ];
    }
    case 'Purchase':
      // A cheque, cash or card expense takes money out; a card refund (`Credit`) brings it back.
      return side(
        bank(x.AccountRef),
        x.Credit === true ? total : -total,
        first(x.EntityRef?.name, x.DocNumber, x.PrivateNote, ...lineDescriptions(x)),
        x.Credit === true ? 'directIncomes' : 'directCosts',
      );
    case 'SalesReceipt':
      return side(bank(x.DepositToAccountRef), total, first(x.PaymentRefNum, x.DocNumber, x.CustomerRef?.name), 'directIncomes');
    case 'RefundReceipt':
      return side(bank(x.DepositToAccountRef), -total, first(x.PaymentRefNum, x.DocNumber, x.CustomerRef?.name), 'directCosts');
    case 'CreditCardPayment': {
      // Paying a card off: out of the bank account, into the card (home currency only, as QuickBooks requires).
      const amount = num(x.Amount) ?? 0;
      const note = first(x.PrivateNote, x.Memo);
      return [
        ...side(
          bank(x.BankAccountRef),
          -amount,
          note ?? first(`Payment to ${str(x.CreditCardAccountRef?.name) ?? ''}`.trim()),
          'transfers',
          '-From',
        ),
        ...side(
          bank(x.CreditCardAccountRef),
          amount,
          note ?? first(`Payment from ${str(x.BankAccountRef?.name) ?? ''}`.trim()),
          'transfers',
          '-To',
        ),
      ];
    }
    case 'JournalEntry': {
      // A journal line on a bank or card account moves money through it: a debit in, a credit out.
      const lines: QboEntity[] = Array.isArray(x.Line) ? x.Line.filter((l: QboEntity) => l.DetailType === 'JournalEntryLineDetail') : [];
      return lines.flatMap((l, k) => {
        const d: QboEntity = l.JournalEntryLineDetail ?? {};
        const amount = num(l.Amount) ?? 0;
        return side(
          bank(d.AccountRef),
          d.PostingType === 'Credit' ? -amount : amount,
          first(l.Description, x.PrivateNote, x.DocNumber),
          'journalEntries',
          `-${str(l.Id) ?? String(k + 1)}`,
        );
      });
    }
    case 'Transfer': {
      const amount = num(x.Amount) ?? 0;
      const note = first(x.PrivateNote);
      const from = bank(x.FromAccountRef);
      const to = bank(x.ToAccountRef);
      return [
        ...side(from, -amount, note ?? first(`Transfer to ${str(x.ToAccountRef?.name) ?? ''}`.trim()), 'transfers', '-From'),
        ...side(to, amount, note ?? first(`Transfer from ${str(x.FromAccountRef?.name) ?? ''}`.trim()), 'transfers', '-To'),
      ];
    }
  }
}

/** What a deposit line that takes a held transaction (out of Undeposited Funds) names it as. */
const HELD: Record<string, string> = { Payment: 'payments', SalesReceipt: 'directIncomes', RefundReceipt: 'directCosts' };

/**
 * A deposit's lines, one per line it holds: a payment (or receipt) it takes from Undeposited Funds names that record
 * (so an invoice's payment reaches the bank line that shows the deposit), other money names the deposit; cash back is
 * a line of its own, negative. They add up to what reached the account.
 */
function depositLines(x: QboEntity, id: string, cashBack: number): Data[] {
  const deposit = { id: `Deposit-${id}`, dataType: 'directIncomes' };
  const out: Data[] = (Array.isArray(x.Line) ? x.Line : []).map((l: QboEntity) => {
    const held = (Array.isArray(l.LinkedTxn) ? l.LinkedTxn : []).find((t: QboEntity) => HELD[t.TxnType] !== undefined);
    const dataType = held ? HELD[held.TxnType] : undefined;
    return defined({
      description: str(l.Description),
      recordRef: held ? { id: UNSERVED.has(dataType!) ? `${held.TxnType}-${held.TxnId}` : String(held.TxnId), dataType } : deposit,
      amount: num(l.Amount) ?? 0,
    });
  });
  if (cashBack !== 0) out.push(defined({ description: str(x.CashBack?.Memo), recordRef: deposit, amount: -cashBack }));
  return out;
}

/**
 * An amount in the bank account's currency. QuickBooks writes a transaction's amounts in its own currency
 * (`CurrencyRef`), and lets a foreign customer's payment go into a home-currency account (or a foreign supplier be paid
 * from one) at the transaction's `ExchangeRate` (home currency per unit): such an amount is converted, to the cent.
 */
function inAccountCurrency(amount: number, x: QboEntity, account: QboEntity, ctx: MovementContext): number {
  const own = str(x.CurrencyRef?.value);
  const accountCurrency = str(account.CurrencyRef?.value);
  const rate = num(x.ExchangeRate);
  if (!own || !accountCurrency || own === accountCurrency || accountCurrency !== ctx.homeCurrency || rate === undefined) return amount;
  return Math.round(amount * rate * 100) / 100;
}

function lineDescriptions(x: QboEntity): unknown[] {
  return Array.isArray(x.Line) ? x.Line.map((l: QboEntity) => l.Description) : [];
}

/**
 * One side as Codat's account transaction: one line of the whole amount, naming the record behind it. QuickBooks'
 * API does not say whether a transaction is reconciled, so the status is Unknown, or Void for a voided one.
 */
export function accountTransactionRecord(x: QboEntity, s: Side, ctx: MovementContext): Data {
  const date = qboDate(x.TxnDate) ?? `${(qboInstant(x.MetaData?.CreateTime) ?? '1970-01-01').slice(0, 10)}T00:00:00`;
  // The account's currency, in which the amounts are (see inAccountCurrency); else the transaction's, else the home one.
  const currency = str(s.account?.CurrencyRef?.value) ?? str(x.CurrencyRef?.value) ?? ctx.homeCurrency;
  const converted = currency !== (str(x.CurrencyRef?.value) ?? currency);
  return defined({
    transactionId: s.id,
    note: str(x.PrivateNote),
    bankAccountRef: defined({ id: String(s.account!.Id), name: str(s.account!.Name) }),
    date,
    status: isVoided(x) ? 'Void' : 'Unknown',
    currency,
    currencyRate: converted ? undefined : num(x.ExchangeRate),
    lines: s.lines ?? [defined({ description: s.description, recordRef: s.recordRef, amount: s.amount })],
    totalAmount: s.amount,
  });
}
