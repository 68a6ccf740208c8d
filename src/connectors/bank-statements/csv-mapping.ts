/** The shape of a CSV column mapping (see csv.ts), apart from the parser so presets can name it. */
export type DateFormat =
  | 'YYYY-MM-DD'
  | 'YYYY/MM/DD'
  | 'YYYYMMDD'
  | 'DD.MM.YYYY'
  | 'YYYY.MM.DD'
  | 'DD/MM/YYYY'
  | 'DD-MM-YYYY'
  | 'MM/DD/YYYY'
  | 'MM-DD-YYYY'
  | 'DD.MM.YY'
  | 'DD/MM/YY'
  | 'MM/DD/YY'
  | 'DD MMM YYYY'
  | 'DD-MMM-YY'
  | 'DD-MMM-YYYY';

export interface CsvMapping {
  /** `,`, `;` or a tab; by default the one the header line uses most. */
  delimiter?: string;
  date: { column: string; format: DateFormat };
  valueDate?: { column: string; format: DateFormat };
  /** A signed amount column; or `debit` and `credit` columns (both unsigned). */
  amount?: string;
  debit?: string;
  credit?: string;
  decimal: '.' | ',';
  /** Thousands separators to drop, e.g. `[","]`, `["."]`, `["'"]`. */
  thousands?: string[];
  /** Columns joined into the description. */
  description: string[];
  /** The account's balance after each row. */
  balance?: string;
  /** The account: a column, or one value for the whole file. */
  account?: { column?: string; value?: string };
  currency?: { column?: string; value?: string };
  /** The bank's own transaction id. */
  id?: string;
  /** The bank's transaction code (`db`, `SALA`, `ATM`…): its transaction category. */
  code?: string;
  /** Amounts are positive for money out (card and order exports): every amount's sign is flipped. */
  negate?: boolean;
  /** The amount is unsigned and this column says which way it went: a value in `debit` is money out. */
  direction?: { column: string; debit: string[] };
  /** Rows to leave out: those whose column holds one of the values (`""` for empty), e.g. pending ones. */
  skip?: { column: string; values: string[] }[];
  /** Rows to keep: only those whose column holds one of the values, e.g. booked ones. */
  only?: { column: string; values: string[] }[];
}
