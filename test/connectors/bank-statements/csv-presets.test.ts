import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readStatements } from '../../../src/connectors/bank-statements/read-statements.js';
import { CSV_PRESETS } from '../../../src/connectors/bank-statements/csv-presets.js';
import { addDecimals, compareDecimals } from '../../../src/lib/decimal.js';

/**
 * Every CSV preset against the real export it was made for (csv2ofx's test files, MIT: samples/README.md). The
 * transaction counts and sums are csv2ofx's own converted outputs (where its test settings leave rows out on
 * purpose, the files' rows), and whether the running balances chain is the files' own.
 */
const FILES: { preset: string; file: string; transactions: number; sum: string; chains: boolean | null }[] = [
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking.csv', transactions: 4, sum: '-215.27', chains: true },
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking-baltest-case1.csv', transactions: 4, sum: '-215.27', chains: true },
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking-baltest-case2.csv', transactions: 4, sum: '-215.27', chains: false },
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking-baltest-case3.csv', transactions: 4, sum: '-215.27', chains: true },
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking-baltest-case4.csv', transactions: 4, sum: '-215.27', chains: true },
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking-baltest-case5.csv', transactions: 4, sum: '-215.27', chains: true },
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking-baltest-case6.csv', transactions: 4, sum: '-215.27', chains: true },
  { preset: 'schwab-checking', file: 'csv2ofx-schwab-checking-baltest-case7.csv', transactions: 2, sum: '0.00', chains: true },
  { preset: 'gls', file: 'csv2ofx-gls.csv', transactions: 1, sum: '-98.76', chains: true },
  { preset: 'ubs-ch-fr', file: 'csv2ofx-ubs-ch-fr_trimmed.csv', transactions: 3, sum: '30.00', chains: true },
  { preset: 'amazon-order-history', file: 'csv2ofx-amazon.csv', transactions: 3, sum: '-45.76', chains: null },
  { preset: 'c24', file: 'csv2ofx-c24.csv', transactions: 3, sum: '-50.00', chains: null },
  { preset: 'capitalone', file: 'csv2ofx-capitalone.csv', transactions: 2, sum: '0.00', chains: null },
  { preset: 'creditunion', file: 'csv2ofx-creditunion.csv', transactions: 8, sum: '465000.00', chains: null },
  { preset: 'csv2ofx-default', file: 'csv2ofx-default.csv', transactions: 8, sum: '465000.00', chains: null },
  { preset: 'dbs', file: 'csv2ofx-dbs.csv', transactions: 9, sum: '-16880.26', chains: null },
  { preset: 'ing-es', file: 'csv2ofx-ingesp.csv', transactions: 10, sum: '350.21', chains: false },
  { preset: 'mint', file: 'csv2ofx-mint.csv', transactions: 4, sum: '-3000.00', chains: null },
  { preset: 'mint', file: 'csv2ofx-mint_extra.csv', transactions: 4, sum: '-3000.00', chains: null },
  { preset: 'n26', file: 'csv2ofx-n26-fr.csv', transactions: 2, sum: '0.00', chains: null },
  { preset: 'outbank', file: 'csv2ofx-outbank.csv', transactions: 4, sum: '-35.89', chains: null },
  { preset: 'payoneer', file: 'csv2ofx-payoneer.csv', transactions: 2, sum: '20.00', chains: true },
  { preset: 'pc-mastercard', file: 'csv2ofx-pcmastercard.csv', transactions: 2, sum: '-50.31', chains: null },
  { preset: 'sparkasse', file: 'csv2ofx-sparkasse.csv', transactions: 1, sum: '-24.14', chains: null },
  { preset: 'stripe-payments-all', file: 'csv2ofx-stripe-all.csv', transactions: 5, sum: '112.50', chains: null },
  { preset: 'stripe-payments-default', file: 'csv2ofx-stripe-default.csv', transactions: 5, sum: '112.50', chains: null },
  { preset: 'sumup', file: 'csv2ofx-sumup.csv', transactions: 5, sum: '-1790.12', chains: false },
];

const sample = (file: string) => new Uint8Array(fs.readFileSync(fileURLToPath(new URL(`./samples/csv/${file}`, import.meta.url))));

describe('CSV presets', () => {
  it.each(FILES)('reads $file by its header alone ($preset)', ({ preset, file, transactions, sum, chains }) => {
    const read = readStatements(sample(file));
    expect(read.format).toBe('CSV');
    const all = read.statements.flatMap((s) => s.transactions);
    expect(all).toHaveLength(transactions);
    expect(
      compareDecimals(addDecimals(['0', ...all.map((t) => t.amount)]), sum),
      `sum ${addDecimals(['0', ...all.map((t) => t.amount)])}`,
    ).toBe(0);
    if (chains !== null) expect(read.statements.every((s) => s.reconciles === chains)).toBe(true);
    for (const t of all) expect(t.bookingDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // And by name.
    expect(readStatements(sample(file), { preset }).statements.flatMap((s) => s.transactions)).toHaveLength(transactions);
  });

  it('has a real export for every preset', () => {
    expect(new Set(FILES.map((f) => f.preset))).toEqual(new Set(Object.keys(CSV_PRESETS)));
  });
});
