/**
 * The statement samples the upload tests import (test/connectors/bank-statements/samples, with their licences), and
 * the facts each is checked against: from the files themselves and the source projects' expected outputs
 * (samples/README.md), never from numbers this code produced.
 */
export interface Sample {
  path: string;
  format: string;
  /** Transactions the source project's expected output has (CAMT: one per TxDtls where the details carry amounts). */
  transactions: number;
  /** Per account (in the file's order): the first opening and the last closing balance the file states. */
  balances?: { opening: string; closing: string }[];
  /** OFX: the ledger balance per statement. */
  ledger?: string[];
  /** The file's amounts do not add up (the samples README says which). */
  unreconciled?: boolean;
}

export const SAMPLES: Sample[] = [
  { path: 'mt940/wolph-betterplace-sepa_mt9401.sta', format: 'MT940', transactions: 97 },
  {
    path: 'mt940/wolph-cmxl-mt940.sta',
    format: 'MT940',
    transactions: 16,
    balances: [
      { opening: '84349.74', closing: '84437.04' },
      { opening: '2187.95', closing: '4387.95' },
      { opening: '40000.00', closing: '50040.00' },
    ],
  },
  { path: 'mt940/wolph-jejik-abnamro.sta', format: 'MT940', transactions: 10, unreconciled: true },
  {
    path: 'mt940/wolph-sberbank-171011_01234945.sta',
    format: 'MT940',
    transactions: 3,
    balances: [{ opening: '627311.30', closing: '617874.30' }],
  },
  {
    path: 'camt053/viafintech-valid_example_v4.xml',
    format: 'CAMT.053',
    transactions: 32,
    balances: [{ opening: '322152.16', closing: '322689.77' }],
  },
  { path: 'camt053/viafintech-valid_example.xml', format: 'CAMT.053', transactions: 5, balances: [{ opening: '33.06', closing: '23.06' }] },
  {
    path: 'camt053/genkgo-camt053.v2.multi.statement.xml',
    format: 'CAMT.053',
    transactions: 2,
    balances: [{ opening: '18.15', closing: '20.00' }],
  },
  { path: 'ofx/ofxparse-checking.ofx', format: 'OFX', transactions: 3, ledger: ['100.99'] },
  { path: 'ofx/ofxparse-suncorp.ofx', format: 'OFX', transactions: 1, ledger: ['1234.12'] },
  { path: 'ofx/ofx-data-extractor-example.ofx', format: 'OFX', transactions: 20, ledger: ['635.50', '-562.00'] },
  { path: 'ofx/actual-html-vals.qfx', format: 'OFX', transactions: 2, ledger: ['1111.11'] },
  { path: 'csv/csv2ofx-schwab-checking.csv', format: 'CSV', transactions: 4, balances: [{ opening: '1093.74', closing: '878.47' }] },
  { path: 'csv/csv2ofx-gls.csv', format: 'CSV', transactions: 1, balances: [{ opening: '1333.32', closing: '1234.56' }] },
  { path: 'csv/csv2ofx-ubs-ch-fr_trimmed.csv', format: 'CSV', transactions: 3, balances: [{ opening: '11383.94', closing: '11413.94' }] },
];

export const MALFORMED = [
  { path: 'mt940/wolph-betterplace-sepa_snippet_broken.sta', where: /line \d+/ },
  { path: 'camt053/genkgo-camt053.v2.wrong.xml', where: /no statement/ },
  { path: 'ofx/ofxparse-fail_nice-empty_balance.ofx', where: /LEDGERBAL/ },
];
