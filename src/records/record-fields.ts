import { sha1 } from '../lib/sha1.js';
import { dayNumber } from '../lib/calendar-date.js';
import type { TSchema } from '@sinclair/typebox';

/**
 * The few record fields that lists filter and sort on most, copied out of each record into narrow columns
 * (`record_index.f_*`) when a version is written. Filters and orderBy on them read those columns instead of
 * extracting JSON from every stored document, so a full pass over a million-record version is a scan of a
 * narrow table. Which field of a data type fills each column follows from its schema (first match wins).
 */
export const INDEXED_COLUMNS = ['status', 'date', 'amount', 'currency', 'ref'] as const;
export type IndexedColumn = (typeof INDEXED_COLUMNS)[number];

/**
 * Dotted path of the field each column holds for one data type (absent columns stay null), and the paths kept whole in
 * `f_kept` (KEPT_FIELDS).
 */
export type RecordFieldPaths = Partial<Record<IndexedColumn, string>> & { kept?: readonly KeptField[] };

/*
 * What the reports read of every record of their inputs (the aged debtors and creditors: src/reports/aged/), kept as
 * a small JSON tuple (`f_kept`) when a version is written: a report over a million invoices then scans narrow rows
 * and decodes short arrays, instead of reading every document and decoding objects. A field is a dotted path (its
 * value as stored, null when absent), `{ day }` (a date's day as a `dayNumber`, null when it names none) or
 * `{ list, of }` (a list, each element kept as a tuple of its own fields). Readers take the values by position:
 * the positions of each data type's fields are KEPT_AT's.
 */
export type KeptField = string | { day: string } | { list: string; of: readonly KeptField[] };

const COUNTERPARTY = { customers: 'customerRef', suppliers: 'supplierRef' } as const;
const REF_NAME = { customerRef: 'companyName', supplierRef: 'supplierName' } as const;
const documentFields = (ref: 'customerRef' | 'supplierRef'): KeptField[] => [
  'id',
  { day: 'issueDate' },
  'status',
  'currency',
  'totalAmount',
  `${ref}.id`,
  `${ref}.${REF_NAME[ref]}`,
  {
    list: 'paymentAllocations',
    of: ['payment.id', 'allocation.totalAmount', { day: 'allocation.allocatedOnDate' }, { day: 'payment.paidOnDate' }],
  },
];
const paymentFields = (ref: 'customerRef' | 'supplierRef'): KeptField[] => [
  'id',
  { day: 'date' },
  'currency',
  `${ref}.id`,
  `${ref}.${REF_NAME[ref]}`,
  { list: 'lines', of: ['amount', { day: 'allocatedOnDate' }, { list: 'links', of: ['type', 'id', 'amount'] }] },
];
export const KEPT_FIELDS: Readonly<Partial<Record<string, readonly KeptField[]>>> = {
  customers: ['id', 'customerName'],
  suppliers: ['id', 'supplierName'],
  invoices: documentFields(COUNTERPARTY.customers),
  creditNotes: documentFields(COUNTERPARTY.customers),
  payments: paymentFields(COUNTERPARTY.customers),
  bills: documentFields(COUNTERPARTY.suppliers),
  billCreditNotes: documentFields(COUNTERPARTY.suppliers),
  billPayments: paymentFields(COUNTERPARTY.suppliers),
  // Data integrity and enhanced invoices (src/reports/integrity/): both sides' bank movements and accounts.
  accountTransactions: [
    'id',
    'bankAccountRef.id',
    'currency',
    'date',
    { day: 'date' },
    'totalAmount',
    'note',
    { list: 'lines', of: ['description', 'recordRef.id', 'recordRef.dataType'] },
  ],
  'banking-transactions': [
    'id',
    'accountId',
    'currency',
    'postedDate',
    { day: 'postedDate' },
    'authorizedDate',
    { day: 'authorizedDate' },
    'amount',
    'description',
  ],
  bankAccounts: ['id', 'accountName', 'institution', 'iBan', 'sortCode', 'accountNumber', 'currency'],
  'banking-accounts': ['id', 'name', 'institution.name', 'identifiers.iban', 'identifiers.bankCode', 'identifiers.number', 'currency'],
  // Commerce metrics (src/reports/commerce/).
  'commerce-orders': [
    'id',
    'currency',
    { day: 'createdDate' },
    'totalAmount',
    'totalRefund',
    'status',
    'customerRef.id',
    { list: 'orderLineItems', of: ['quantity', 'unitPrice'] },
    { list: 'payments', of: ['status'] },
  ],
};

/** Where each field of a kept tuple is, for the readers (the counterparty's `ref` and `name` whichever side). */
export const KEPT_AT = {
  counterparty: { id: 0, name: 1 },
  document: { id: 0, day: 1, status: 2, currency: 3, total: 4, ref: 5, refName: 6, allocations: 7 },
  allocation: { maker: 0, amount: 1, day: 2, paidDay: 3 },
  payment: { id: 0, day: 1, currency: 2, ref: 3, refName: 4, lines: 5 },
  line: { amount: 0, day: 1, links: 2 },
  link: { type: 0, id: 1, amount: 2 },
  accountTransaction: { id: 0, account: 1, currency: 2, date: 3, day: 4, amount: 5, note: 6, lines: 7 },
  accountTransactionLine: { description: 0, id: 1, dataType: 2 },
  bankingTransaction: {
    id: 0,
    account: 1,
    currency: 2,
    posted: 3,
    postedDay: 4,
    authorized: 5,
    authorizedDay: 6,
    amount: 7,
    description: 8,
  },
  bankAccount: { id: 0, name: 1, institution: 2, iban: 3, sortCode: 4, number: 5, currency: 6 },
  order: { id: 0, currency: 1, day: 2, total: 3, refund: 4, status: 5, customer: 6, lines: 7, payments: 8 },
  orderLine: { quantity: 0, unitPrice: 1 },
} as const;

function at(data: unknown, path: string): unknown {
  let value = data;
  for (const key of path.split('.'))
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** A date's day (`YYYY-MM-DD…`) as days since 1970-01-01; null when the value names no day. */
function dayOfValue(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value)) return null;
  const day = dayNumber(value.slice(0, 10));
  return Number.isFinite(day) ? day : null;
}

const layouts = new WeakMap<readonly KeptField[], string>();

/**
 * A short name of a tuple's layout (its fields, in order), stored as the tuple's last element: a version keeps its
 * tuples as they were written, so a reader whose KEPT_FIELDS have changed since tells the old ones apart and reads
 * those records' documents instead.
 */
export function keptLayout(fields: readonly KeptField[]): string {
  let layout = layouts.get(fields);
  if (layout === undefined) {
    layout = sha1(JSON.stringify(fields), 'hex').slice(0, 8);
    layouts.set(fields, layout);
  }
  return layout;
}

/** The kept tuple of a record (see KEPT_FIELDS). */
export function keptTuple(fields: readonly KeptField[], data: unknown): unknown[] {
  return fields.map((field) => {
    if (typeof field === 'string') {
      const value = at(data, field);
      return value === undefined ? null : value;
    }
    if ('day' in field) return dayOfValue(at(data, field.day));
    const list = at(data, field.list);
    return Array.isArray(list) ? list.map((element) => keptTuple(field.of, element)) : null;
  });
}

const CANDIDATES: Record<IndexedColumn, { paths: string[]; kind: 'string' | 'date' | 'number' }> = {
  status: { paths: ['status'], kind: 'string' },
  date: { paths: ['issueDate', 'date', 'postedDate', 'postedOn', 'createdDate', 'closedDate'], kind: 'date' },
  amount: { paths: ['amountDue', 'totalAmount', 'amount'], kind: 'number' },
  currency: { paths: ['currency'], kind: 'string' },
  ref: { paths: ['customerRef.id', 'supplierRef.id', 'accountId', 'contactRef.id'], kind: 'string' },
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  const?: unknown;
  format?: string;
};

const cache = new WeakMap<TSchema, RecordFieldPaths>();

/** The indexed fields of a data type, from the schema of its served records. */
export function recordFieldPaths(schema: TSchema): RecordFieldPaths {
  let paths = cache.get(schema);
  if (!paths) {
    paths = {};
    for (const column of INDEXED_COLUMNS) {
      const { paths: candidates, kind } = CANDIDATES[column];
      const found = candidates.find((path) => leafKind(schema as JsonSchema, path.split('.')) === kind);
      if (found) paths[column] = found;
    }
    cache.set(schema, paths);
  }
  return paths;
}

function leafKind(schema: JsonSchema, path: string[]): 'string' | 'date' | 'number' | undefined {
  let node: JsonSchema | undefined = schema;
  for (const key of path) node = unwrap(node)?.properties?.[key];
  node = unwrap(node);
  if (!node) return undefined;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('number') || types.includes('integer')) return 'number';
  if (types.includes('string')) return node.format === 'date-time' || node.format === 'date' ? 'date' : 'string';
  // TypeBox enums: a union of string constants.
  if (node.anyOf?.every((m) => typeof m.const === 'string')) return 'string';
  return undefined;
}

function unwrap(node: JsonSchema | undefined): JsonSchema | undefined {
  if (!node?.anyOf) return node;
  const members = node.anyOf.filter((m) => m.type !== 'null');
  return members.length === 1 ? members[0] : node;
}

/** The column values of a record that has none (a deletion): every INDEXED_COLUMNS column, then `f_kept`, null. */
export const NO_FIELD_VALUES: readonly null[] = Object.freeze([...INDEXED_COLUMNS.map(() => null), null]);

/**
 * The column values of one record, in INDEXED_COLUMNS order (a missing field or one of another type is null), then
 * `f_kept`: the kept copy as JSON, or null for a data type with none.
 */
export function extractFields(paths: RecordFieldPaths, data: Record<string, unknown>): (string | number | null)[] {
  const kept = paths.kept ? JSON.stringify([...keptTuple(paths.kept, data), keptLayout(paths.kept)]) : null;
  const columns = INDEXED_COLUMNS.map((column) => {
    const path = paths[column];
    if (!path) return null;
    const value = at(data, path);
    if (CANDIDATES[column].kind === 'number') return typeof value === 'number' ? value : null;
    return typeof value === 'string' ? value : null;
  });
  columns.push(kept);
  return columns;
}
