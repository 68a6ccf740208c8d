import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CsvMapping } from '../../src/connectors/bank-statements/csv-mapping.js';

/**
 * The real statement files of test/connectors/bank-statements/corpus (its README: sources, commits, licences) and
 * corpus.json's facts about each, from the source projects' own assertions or the files' stated balances.
 */
const DIR = '../connectors/bank-statements/corpus/';

export interface Expected {
  account?: string;
  entries?: number;
  details?: number;
  currency?: string;
  opening?: string;
  closing?: string;
  transactions?: number;
  sum?: string;
  reconciles?: boolean;
}
export interface Entry {
  path: string;
  format: 'MT940' | 'CAMT.053' | 'OFX' | 'CSV';
  transactions?: number;
  /** CAMT: the entries (`Ntry`) and their details (`TxDtls`) the file has. */
  entries?: number;
  details?: number;
  statements?: Expected[];
  malformed?: boolean;
  descriptions?: { index: number; statement?: number; contains: string[] }[];
  bankCodes?: { index: number; code?: string; domain?: string; family?: string; subfamily?: string; proprietary?: string }[];
}

export const CORPUS: Entry[] = JSON.parse(fs.readFileSync(fileURLToPath(new URL(`${DIR}corpus.json`, import.meta.url)), 'utf8'));
/** A corpus file's bytes, by its path in the corpus (`mt940/…`). */
export const corpusFile = (path: string) => new Uint8Array(fs.readFileSync(fileURLToPath(new URL(`${DIR}${path}`, import.meta.url))));

/** The mappings an uploader gives for the CSV layouts (corpus.json's notes describe each file's columns). */
/** John Lewis Partnership Card's export, which both of its files in the corpus have. */
const JOHN_LEWIS: CsvMapping = {
  date: { column: 'Date Processed', format: 'DD-MMM-YYYY' },
  amount: 'Amount',
  decimal: '.',
  thousands: [','],
  description: ['Description'],
  currency: { value: 'GBP' },
  negate: true,
};

export const MAPPINGS: Record<string, CsvMapping> = {
  'csv/bank2ynab-MS_JANE_SMITH_01-12-2019_14-12-2019.csv': {
    ...JOHN_LEWIS,
    skip: [{ column: 'Date Processed', values: ['Pending'] }],
  },
  'csv/jl-partnership-sample-statement.csv': JOHN_LEWIS,
  'csv/bank2ynab-CSV_A_20180414_112204.csv': {
    date: { column: 'Datum', format: 'YYYY-MM-DD' },
    amount: 'Bedrag',
    decimal: ',',
    description: ['Naam tegenpartij', 'Omschrijving-1'],
    balance: 'Saldo na trn',
    code: 'Code',
    account: { column: 'IBAN/BBAN' },
    currency: { column: 'Munt' },
  },
  'csv/bank2ynab-test_BOI_TransactionExport.csv': {
    date: { column: 'Date', format: 'DD/MM/YYYY' },
    debit: 'Debit',
    credit: 'Credit',
    decimal: '.',
    description: ['Details'],
    currency: { value: 'EUR' },
  },
  'csv/bank2ynab-W80844_EBH_201945.202122.csv': {
    date: { column: 'Tranzakció dátuma', format: 'YYYY.MM.DD' },
    amount: 'Tranzakció összege',
    decimal: '.',
    description: ['Partner neve'],
    balance: 'Egyenleg',
    currency: { column: 'Tranzakció devizaneme' },
  },
  'csv/bank2ynab-export_BE11123456789012_20180304_1422.csv': {
    date: { column: 'Datum', format: 'DD/MM/YYYY' },
    amount: 'Bedrag',
    decimal: ',',
    description: ['Omschrijving'],
    balance: 'Saldo',
    account: { column: 'Rekeningnummer' },
    currency: { column: 'Munt' },
  },
  // Not here: OCBC's export (bank2ynab-TransactionHistory_…), whose one stated fact, its ledger balance, sits in a
  // preamble line no column mapping reads.
};
