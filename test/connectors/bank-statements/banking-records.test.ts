import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { bankingData, recordOfLine, transactionIdsOf, transactionLines } from '../../../src/connectors/bank-statements/banking-records.js';
import { readStatements } from '../../../src/connectors/bank-statements/read-statements.js';
import type { ParsedStatement } from '../../../src/connectors/bank-statements/statement.js';
import {
  BankingAccount,
  BankingAccountBalance,
  BankingTransaction,
  BankingTransactionCategory,
} from '../../../src/codat-model/banking/schemas.js';
import { addDecimals, compareDecimals } from '../../../src/lib/decimal.js';

/** Statements as Codat's banking data: the served shape, exact balances, and ids that make re-uploads harmless. */
const NOW = '2026-11-24T00:00:00Z';
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(v) && !Number.isNaN(Date.parse(v)));
const DIR = fileURLToPath(new URL('./samples/', import.meta.url));
const VALID = [
  'mt940/wolph-betterplace-sepa_mt9401.sta',
  'mt940/wolph-cmxl-mt940.sta',
  'mt940/wolph-jejik-abnamro.sta',
  'mt940/wolph-sberbank-171011_01234945.sta',
  'camt053/genkgo-camt053.v2.multi.statement.xml',
  'camt053/viafintech-valid_example.xml',
  'camt053/viafintech-valid_example_v4.xml',
  'ofx/ofxparse-checking.ofx',
  'ofx/ofxparse-suncorp.ofx',
  'ofx/ofx-data-extractor-example.ofx',
  'ofx/actual-html-vals.qfx',
  'csv/csv2ofx-schwab-checking.csv',
  'csv/csv2ofx-gls.csv',
  'csv/csv2ofx-ubs-ch-fr_trimmed.csv',
];
const statementsOf = (path: string): ParsedStatement[] => readStatements(new Uint8Array(fs.readFileSync(DIR + path))).statements;

describe('banking data from statement files', () => {
  it.each(VALID)('%s: every record in the served shape; the statement balances hold to the cent in the data served', (path) => {
    const statements = statementsOf(path);
    const data = bankingData(statements, NOW);
    for (const r of data.accounts)
      expect(Value.Check(BankingAccount, r.data), JSON.stringify([...Value.Errors(BankingAccount, r.data)][0])).toBe(true);
    for (const r of data.transactions) expect(Value.Check(BankingTransaction, r.data), JSON.stringify(r.data)).toBe(true);
    for (const r of data.balances) expect(Value.Check(BankingAccountBalance, r.data)).toBe(true);
    for (const r of data.categories) expect(Value.Check(BankingTransactionCategory, r.data)).toBe(true);
    const served = new Map(data.transactions.map((t) => [t.id, t.data]));
    for (const statement of statements) {
      if (!statement.opening || !statement.closing) continue;
      // The amounts as served (JSON numbers), added exactly.
      const amounts = transactionIdsOf(statement).map((id) => String((served.get(id) as { amount: number }).amount));
      const adds = compareDecimals(addDecimals([statement.opening.amount, ...amounts]), statement.closing.amount) === 0;
      expect(adds).toBe(statement.reconciles);
    }
    // OFX: the account's current balance is the ledger balance.
    if (path.startsWith('ofx/')) {
      for (const s of statements)
        expect(data.accounts.find((a) => a.data.name === s.account.identifier)?.data.balance).toMatchObject({
          current: Number(s.closing!.amount),
        });
    }
  });

  it('adds nothing when the same file is uploaded twice, or when the next file repeats days', () => {
    const once = bankingData(statementsOf('mt940/wolph-cmxl-mt940.sta'), NOW);
    const twice = bankingData([...statementsOf('mt940/wolph-cmxl-mt940.sta'), ...statementsOf('mt940/wolph-cmxl-mt940.sta')], NOW);
    expect(twice.transactions.map((t) => t.id)).toEqual(once.transactions.map((t) => t.id));
    // Two overlapping cuts of the first statement (no ids in the file: fingerprints) give its 11 transactions once.
    const [first] = statementsOf('mt940/wolph-cmxl-mt940.sta');
    const early = { ...first, transactions: first.transactions.slice(0, 7) };
    const late = { ...first, transactions: first.transactions.slice(4) };
    const overlapping = bankingData([early, late], NOW).transactions.filter((t) => t.data.currency === 'DEM');
    expect(overlapping).toHaveLength(11);
  });

  it('keeps two identical transactions of one statement, and names statements that do not reconcile', () => {
    const [first] = statementsOf('mt940/wolph-cmxl-mt940.sta');
    const doubled = { ...first, transactions: [first.transactions[0], first.transactions[0]] };
    expect(bankingData([doubled], NOW).transactions).toHaveLength(2);
    const abn = bankingData(statementsOf('mt940/wolph-jejik-abnamro.sta'), NOW);
    expect(abn.warnings).toEqual([
      expect.stringMatching(/^the MT940 statement of account 517852257 for 2011-05-2\d to 2011-05-2\d does not reconcile/),
      expect.stringMatching(/^the MT940 statement of account 517852257 for .* to 2011-05-24 does not reconcile/),
    ]);
  });

  it("dates the opening balance the day before the statement's first date, the closing on its last", () => {
    const [s] = statementsOf('mt940/wolph-sberbank-171011_01234945.sta');
    const data = bankingData([s], NOW);
    expect(data.balances.map((b) => [b.data.date, (b.data.balance as { current: number }).current]).sort()).toEqual([
      ['2017-10-10T00:00:00', 627311.3],
      ['2017-10-11T00:00:00', 617874.3],
    ]);
  });

  it.each(VALID)(
    '%s: what a file keeps (its transaction lines) is in ascending id order, each id once, and makes the same records',
    (path) => {
      const statements = statementsOf(path);
      const lines = [...transactionLines(statements)];
      const ids = lines.map(([id]) => id);
      expect(ids).toEqual([...ids].sort());
      expect(new Set(ids).size).toBe(ids.length);
      // The same records as the statements make directly (the later statement's where a file repeats one).
      expect(lines.map((line) => recordOfLine(line, NOW))).toEqual(bankingData(statements, NOW).transactions);
    },
  );

  it('keeps the later statement of a transaction a file repeats, in its lines too', () => {
    const [first] = statementsOf('mt940/wolph-cmxl-mt940.sta');
    // The same transactions (the same ids: a code is not part of a fingerprint), told differently.
    const later = { ...first, transactions: first.transactions.map((t) => ({ ...t, bankCode: 'LATER' })) };
    const lines = [...transactionLines([first, later])];
    expect(lines).toHaveLength(first.transactions.length);
    expect(lines.every(([, , , , , , , code]) => code === 'LATER')).toBe(true);
  });
});
