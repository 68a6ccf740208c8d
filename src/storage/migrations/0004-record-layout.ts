import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Splits `records` in two, for writes and deep reads at a million records:
 * - `record_docs`: the served JSON, keyed by one integer (`version * 2^32 + position`), so a version is one
 *   contiguous key range: pages are range reads, and one B-tree is written per record instead of three;
 * - `record_index`: one narrow row per record (id, position, hash, dates, deletion, the indexed fields), keyed
 *   by `(version, record_id)`: lookups by id, the previous-version merge of a sync, and filter scans read it
 *   without touching the documents.
 * Existing versions are copied across, their indexed fields extracted by the rules the writer used when this
 * migration was frozen: the field each column holds per data type (FIELD_PATHS, as record-fields.ts derived them
 * from the data types' schemas) and the JSON extraction of each store, copied here so that a later change to
 * either cannot change what this migration does.
 *
 * All or nothing on both stores. Kysely runs a Postgres migration in a transaction but not a SQLite one, and
 * this one copies every stored record: stopped part-way (a crash, a restart during a deploy, a failing
 * statement), it would leave `record_docs` created beside `records`, and every later start would fail on
 * "table record_docs already exists". So on SQLite it opens its own transaction.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (db.isTransaction) await split(db, dialect);
  else await db.transaction().execute((trx) => split(trx, dialect));
}

async function split(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const pg = dialect === 'postgres';
  await sql`CREATE TABLE record_docs (key ${sql.raw(pg ? 'bigint' : 'integer')} PRIMARY KEY, doc text NOT NULL)`.execute(db);
  await sql`CREATE TABLE record_index (
    version bigint NOT NULL,
    record_id text ${sql.raw(pg ? 'COLLATE "C"' : '')} NOT NULL,
    position integer NOT NULL,
    content_hash text NOT NULL,
    modified_date text NOT NULL,
    is_deleted integer NOT NULL,
    f_status text,
    f_date text,
    f_amount ${sql.raw(pg ? 'double precision' : 'real')},
    f_currency text,
    f_ref text,
    PRIMARY KEY (version, record_id)
  ) ${sql.raw(pg ? '' : 'WITHOUT ROWID')}`.execute(db);

  await sql`INSERT INTO record_docs (key, doc) SELECT version * 4294967296 + position, doc FROM records`.execute(db);
  await sql`INSERT INTO record_index (version, record_id, position, content_hash, modified_date, is_deleted)
    SELECT version, record_id, position, content_hash, modified_date, is_deleted FROM records`.execute(db);

  const versions = await sql<{ seq: number; data_type: string }>`
    SELECT p.seq, p.data_type FROM pull_operations p WHERE p.seq IN (SELECT DISTINCT version FROM records)`.execute(db);
  for (const v of versions.rows) {
    const paths = Object.hasOwn(FIELD_PATHS, v.data_type) ? FIELD_PATHS[v.data_type] : undefined;
    if (!paths) continue;
    const sets = COLUMNS.filter((c) => paths[c]).map((column) => {
      const path = (paths[column] as string).split('.');
      const value = pg
        ? sql.raw(`(doc::jsonb #>> '{${path.join(',')}}')${column === 'amount' ? '::numeric' : ''}`)
        : sql.raw(`json_extract(doc, '$.${path.join('.')}')`);
      return sql`${sql.ref(`f_${column}`)} = (SELECT ${value} FROM records r WHERE r.version = record_index.version AND r.record_id = record_index.record_id)`;
    });
    if (sets.length === 0) continue;
    await sql`UPDATE record_index SET ${sql.join(sets)} WHERE version = ${Number(v.seq)}`.execute(db);
  }
  await sql`DROP TABLE records`.execute(db);
}

const COLUMNS = ['status', 'date', 'amount', 'currency', 'ref'] as const;

/** Per data type, the field each indexed column holds (a dotted path), as the writer derived them when this was frozen. */
const FIELD_PATHS: Record<string, Partial<Record<(typeof COLUMNS)[number], string>>> = {
  accountTransactions: { status: 'status', date: 'date', amount: 'totalAmount', currency: 'currency' },
  balanceSheet: { date: 'date' },
  bankAccounts: { status: 'status', currency: 'currency' },
  bankTransactions: { amount: 'amount', ref: 'accountId' },
  'banking-accountBalances': { date: 'date', ref: 'accountId' },
  'banking-accounts': { currency: 'currency' },
  'banking-transactionCategories': { status: 'status' },
  'banking-transactions': { date: 'postedDate', amount: 'amount', currency: 'currency', ref: 'accountId' },
  billCreditNotes: { status: 'status', date: 'issueDate', amount: 'totalAmount', currency: 'currency', ref: 'supplierRef.id' },
  billPayments: { date: 'date', amount: 'totalAmount', currency: 'currency', ref: 'supplierRef.id' },
  bills: { status: 'status', date: 'issueDate', amount: 'amountDue', currency: 'currency', ref: 'supplierRef.id' },
  cashFlowStatement: {},
  chartOfAccounts: { status: 'status', currency: 'currency' },
  'commerce-companyInfo': { date: 'createdDate' },
  'commerce-customers': { date: 'createdDate' },
  'commerce-disputes': { status: 'status', date: 'createdDate', amount: 'totalAmount', currency: 'currency' },
  'commerce-locations': {},
  'commerce-orders': { date: 'createdDate', amount: 'totalAmount', currency: 'currency', ref: 'customerRef.id' },
  'commerce-paymentMethods': { status: 'status' },
  'commerce-payments': { status: 'status', date: 'createdDate', amount: 'amount', currency: 'currency' },
  'commerce-productCategories': {},
  'commerce-products': {},
  'commerce-taxComponents': {},
  'commerce-transactions': { date: 'createdDate', amount: 'totalAmount', currency: 'currency' },
  company: { date: 'createdDate' },
  creditNotes: { status: 'status', date: 'issueDate', amount: 'totalAmount', currency: 'currency', ref: 'customerRef.id' },
  customers: { status: 'status' },
  directCosts: { date: 'issueDate', amount: 'totalAmount', currency: 'currency', ref: 'contactRef.id' },
  directIncomes: { date: 'issueDate', amount: 'totalAmount', currency: 'currency', ref: 'contactRef.id' },
  invoices: { status: 'status', date: 'issueDate', amount: 'amountDue', currency: 'currency', ref: 'customerRef.id' },
  itemReceipts: { status: 'status', amount: 'totalAmount', currency: 'currency', ref: 'supplierRef.id' },
  items: {},
  journalEntries: { date: 'postedOn' },
  journals: { status: 'status' },
  paymentMethods: { status: 'status' },
  payments: { date: 'date', amount: 'totalAmount', currency: 'currency', ref: 'customerRef.id' },
  profitAndLoss: {},
  purchaseOrders: { status: 'status', date: 'issueDate', amount: 'totalAmount', currency: 'currency', ref: 'supplierRef.id' },
  salesOrders: { status: 'status', date: 'issueDate', amount: 'totalAmount', currency: 'currency', ref: 'customerRef.id' },
  suppliers: { status: 'status' },
  taxRates: { status: 'status' },
  trackingCategories: { status: 'status' },
  transfers: { date: 'date', ref: 'contactRef.id' },
};
