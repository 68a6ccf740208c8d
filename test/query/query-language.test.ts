import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { sql, type Kysely } from 'kysely';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { MAX_QUERY_LENGTH, parseQuery, QuerySyntaxError, type QueryNode } from '../../src/query/query-parser.js';
import { normalizeDateValue } from '../../src/query/query-dates.js';
import { compileQuery, QuerySemanticError, UnknownPropertyError } from '../../src/query/query-compiler.js';
import { compileOrderBy } from '../../src/query/order-by.js';
import { resolverFromSchema } from '../../src/query/schema-resolver.js';
import type { QueryableResource } from '../../src/query/properties.js';

/*
 * The query language end to end below the HTTP layer: the parser's AST, date normalisation, and the
 * compiled SQL run against a scratch table on the real store (SQLite, or Postgres with TEST_DATABASE_URL).
 */

const cmp = (property: string, op: string, value: string): QueryNode => ({ kind: 'compare', property, op: op as never, value });
const and = (...children: QueryNode[]): QueryNode => ({ kind: 'and', children });
const or = (...children: QueryNode[]): QueryNode => ({ kind: 'or', children });

function syntaxError(text: string): QuerySyntaxError {
  try {
    parseQuery(text);
  } catch (err) {
    expect(err).toBeInstanceOf(QuerySyntaxError);
    return err as QuerySyntaxError;
  }
  throw new Error(`parsed without error: ${JSON.stringify(text)}`);
}

describe('parseQuery', () => {
  it.each([
    ['=', 'amount=1'],
    ['!=', 'amount!=1'],
    ['~', 'amount~1'],
    ['>', 'amount>1'],
    ['<', 'amount<1'],
    ['>=', 'amount>=1'],
    ['<=', 'amount<=1'],
  ])('reads the %s operator', (op, text) => {
    // `>=` must not be read as `>` followed by the value `=1`.
    expect(parseQuery(text)).toEqual(cmp('amount', op, '1'));
  });

  it('allows spaces around operators and trims values, keeping inner spaces', () => {
    expect(parseQuery('  amountDue   >=   0  ')).toEqual(cmp('amountDue', '>=', '0'));
    expect(parseQuery('name = Acme  Ltd ')).toEqual(cmp('name', '=', 'Acme  Ltd'));
    expect(parseQuery('a=1 && b != 2 ||c~x')).toEqual(or(and(cmp('a', '=', '1'), cmp('b', '!=', '2')), cmp('c', '~', 'x')));
  });

  it('reads dotted properties', () => {
    expect(parseQuery('customerRef.id=61')).toEqual(cmp('customerRef.id', '=', '61'));
    expect(parseQuery('a.b_c.D9=x')).toEqual(cmp('a.b_c.D9', '=', 'x'));
  });

  it('flattens chains of && and of ||', () => {
    expect(parseQuery('a=1&&b=2&&c=3')).toEqual(and(cmp('a', '=', '1'), cmp('b', '=', '2'), cmp('c', '=', '3')));
    expect(parseQuery('a=1||b=2||c=3')).toEqual(or(cmp('a', '=', '1'), cmp('b', '=', '2'), cmp('c', '=', '3')));
  });

  it('binds && tighter than ||', () => {
    expect(parseQuery('a=1 || b=2 && c=3')).toEqual(or(cmp('a', '=', '1'), and(cmp('b', '=', '2'), cmp('c', '=', '3'))));
    expect(parseQuery('a=1 && b=2 || c=3')).toEqual(or(and(cmp('a', '=', '1'), cmp('b', '=', '2')), cmp('c', '=', '3')));
  });

  it('groups with braces, nested', () => {
    expect(parseQuery('{a=1 || b=2} && c=3')).toEqual(and(or(cmp('a', '=', '1'), cmp('b', '=', '2')), cmp('c', '=', '3')));
    expect(parseQuery('{{a=1}}')).toEqual(cmp('a', '=', '1'));
    expect(parseQuery('{a=1 && {b=2 || {c=3 && d=4}}}')).toEqual(
      and(cmp('a', '=', '1'), or(cmp('b', '=', '2'), and(cmp('c', '=', '3'), cmp('d', '=', '4')))),
    );
  });

  it('keeps &&, || and braces inside quoted values, in either quote', () => {
    expect(parseQuery('name="a && b || {c}"')).toEqual(cmp('name', '=', 'a && b || {c}'));
    expect(parseQuery("name='x&&y' && b=2")).toEqual(and(cmp('name', '=', 'x&&y'), cmp('b', '=', '2')));
    expect(parseQuery(`name = "O'Brien"`)).toEqual(cmp('name', '=', "O'Brien"));
  });

  it('treats single & and |, quotes after the start, and = inside a value as part of the value', () => {
    expect(parseQuery('name=Smith & Sons | Co')).toEqual(cmp('name', '=', 'Smith & Sons | Co'));
    expect(parseQuery("name=O'Brien")).toEqual(cmp('name', '=', "O'Brien"));
    expect(parseQuery('url=a=b')).toEqual(cmp('url', '=', 'a=b'));
    // Without && or || there is one comparison: the value runs on.
    expect(parseQuery('name=x y=1')).toEqual(cmp('name', '=', 'x y=1'));
  });

  it.each([
    ['', 'empty query'],
    ['   ', 'only spaces'],
    ['=x', 'empty property'],
    ['name', 'no operator'],
    ['name x', 'no operator, two words'],
    ['name!x', 'lone !'],
    ['name=', 'no value'],
    ['name=   ', 'blank value'],
    ['{name=x', 'unclosed brace'],
    ['name=x}', 'unopened brace'],
    ['{name=x}}', 'extra closing brace'],
    ['{{name=x}', 'missing closing brace'],
    ['}', 'lone closing brace'],
    ['{}', 'empty group'],
    ['name=x &&', 'trailing &&'],
    ['name=x ||', 'trailing ||'],
    ['&& name=x', 'leading &&'],
    ['name=x && && b=1', 'doubled &&'],
    ['name="x', 'unterminated double quote'],
    ["name='x", 'unterminated single quote'],
    ['name="x" y', 'text after a quoted value'],
    ['name) OR (1=1', 'SQL in the property'],
    ["name'='x", 'quote in the property'],
    ['na-me=x', 'hyphen in the property'],
    ['.name=x', 'leading dot'],
    ['name.=x', 'trailing dot'],
    ['a..b=x', 'empty path segment'],
    ['1name=x', 'property starting with a digit'],
    ['name=x{', 'brace after a value'],
  ])('rejects %j as malformed (%s)', (text) => {
    const err = syntaxError(text);
    expect(err.reason).toBe('malformed');
    expect(err.message).toBe('Malformed query.');
  });

  it('allows 32 nested groups and rejects deeper nesting as too deep rather than overflowing the stack', () => {
    const nest = (n: number) => `${'{'.repeat(n)}a=1${'}'.repeat(n)}`;
    expect(parseQuery(nest(32))).toEqual(cmp('a', '=', '1'));
    expect(syntaxError(nest(33)).reason).toBe('too-deep');
    expect(syntaxError(nest(1000)).reason).toBe('too-deep');
    expect(syntaxError(nest(1000)).message).toBe('Query groups ({ }) must not nest deeper than 32 levels.');
  });

  it('accepts up to 2047 characters and rejects 2048 or more', () => {
    expect(MAX_QUERY_LENGTH).toBe(2048);
    const longest = `name=${'x'.repeat(2042)}`;
    expect(longest).toHaveLength(2047);
    expect(parseQuery(longest)).toEqual(cmp('name', '=', 'x'.repeat(2042)));
    for (const text of [`${longest}x`, `name=${'x'.repeat(10_000)}`]) {
      const err = syntaxError(text);
      expect(err.reason).toBe('too-long');
      expect(err.message).toBe('Query must be under 2048 characters.');
    }
  });
});

describe('normalizeDateValue', () => {
  it.each([
    ['2021-01-28', '2021-01-28T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000Z'],
    ['2024-01-01t00:00:00z', '2024-01-01T00:00:00.000Z'],
    ['2024-01-01T10:30', '2024-01-01T10:30:00.000Z'],
    ['2024-01-01 10:30:15', '2024-01-01T10:30:15.000Z'],
    ['2024-01-01T12:34:56.789Z', '2024-01-01T12:34:56.789Z'],
    ['2024-01-01T12:34:56.1234567Z', '2024-01-01T12:34:56.123Z'],
    ['2024-01-01T12:34:56.5Z', '2024-01-01T12:34:56.500Z'],
    ['2021-11-15T01:00:00-05:00', '2021-11-15T06:00:00.000Z'],
    ['2021-11-15T01:00:00+05:30', '2021-11-14T19:30:00.000Z'],
    ['2021-11-15T01:00:00+0530', '2021-11-14T19:30:00.000Z'],
    ['2024-01-01T00:30:00+01:00', '2023-12-31T23:30:00.000Z'],
    ['2024-12-31T23:00:00-02:00', '2025-01-01T01:00:00.000Z'],
    ['  2021-01-28  ', '2021-01-28T00:00:00.000Z'],
  ])('reads %j as the instant %s', (raw, expected) => {
    expect(normalizeDateValue(raw, 'instant')).toBe(expected);
  });

  it.each([
    ['2021-01-28', '2021-01-28T00:00:00'],
    ['2021-11-15T01:00:00-05:00', '2021-11-15T01:00:00'],
    ['2021-11-15T01:00:00Z', '2021-11-15T01:00:00'],
    ['2021-11-15T01:02:03.456+09:00', '2021-11-15T01:02:03'],
  ])('reads %j as the local date-time %s, dropping any offset', (raw, expected) => {
    expect(normalizeDateValue(raw, 'local')).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '2024/01/01',
    '20240101',
    '2024-1-1',
    '2021-02-29',
    '2021-13-01',
    '2021-00-10',
    '2021-01-32',
    '2021-04-31',
    '2024-01-01T24:00:00Z',
    '2024-01-01T23:60:00Z',
    '2024-01-01T23:59:60Z',
    '2024-01-01T',
    '2024-01-01T10',
    '2024-01-01T10:00:00+5',
    '2024-01-01T10:00:00 UTC',
  ])('rejects %j', (raw) => {
    expect(normalizeDateValue(raw, 'instant')).toBeUndefined();
    expect(normalizeDateValue(raw, 'local')).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// Compiled queries on a real store.

const TABLE = 'query_lang_rows';

const Row = Type.Object({
  id: Type.String(),
  name: Type.String(),
  amount: Type.Number(),
  quantity: Type.Integer(),
  issueDate: Type.String({ format: 'date-time' }),
  dueDate: Type.Optional(Type.String({ format: 'date-time', 'x-date-style': 'local' })),
  status: Type.Union(['Draft', 'Submitted', 'PartiallyPaid', 'Paid', 'Void'].map((s) => Type.Literal(s))),
  customerRef: Type.Object({ id: Type.String(), name: Type.Optional(Type.String()) }),
  metadata: Type.Optional(Type.Object({ isDeleted: Type.Optional(Type.Boolean()) })),
  note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  lineItems: Type.Array(Type.Object({ unitAmount: Type.Number() })),
});

/*
 * | id | name            | amount | qty | issueDate (instant)      | dueDate (local)     | status        | customerRef    | isDeleted | note  |
 * | r1 | Acme Ltd        | 100    | 1   | 2024-01-01T00:00:00.000Z | 2024-01-31T00:00:00 | Paid          | 61 Alpha       | false     | first |
 * | r2 | acme holdings   | 250.5  | 2   | 2024-02-15T12:30:00.000Z | 2024-03-15T17:00:00 | Submitted     | 62             | true      | null  |
 * | r3 | Beta && Sons    | 0      | 10  | 2023-12-31T23:30:00.000Z | -                   | Draft         | 61 Alpha       | (no meta) | -     |
 * | r4 | 100% Pure_Water | -20    | 9   | 2024-03-01T00:00:00.000Z | 2024-03-01T09:00:00 | Void          | 63 Gamma       | (meta {}) | -     |
 * | r5 | 1000 Pure-Water | 49.99  | 3   | 2024-01-01T00:00:00.001Z | -                   | PartiallyPaid | 64 Delta       | false     | -     |
 * | r6 | Back\slash {Co} | 1000   | 100 | 2022-06-30T08:00:00.000Z | 2022-07-30T08:00:00 | Paid          | 65 O'Brien     | (no meta) | x     |
 * | r7 | École Ltd       | 75     | 4   | 2024-05-05T05:05:05.000Z | 2024-05-31T00:00:00 | Draft         | 66             | false     | -     |
 */
const ROWS = [
  {
    id: 'r1',
    name: 'Acme Ltd',
    amount: 100,
    quantity: 1,
    issueDate: '2024-01-01T00:00:00.000Z',
    dueDate: '2024-01-31T00:00:00',
    status: 'Paid',
    customerRef: { id: '61', name: 'Alpha' },
    metadata: { isDeleted: false },
    note: 'first',
    lineItems: [{ unitAmount: 700 }],
  },
  {
    id: 'r2',
    name: 'acme holdings',
    amount: 250.5,
    quantity: 2,
    issueDate: '2024-02-15T12:30:00.000Z',
    dueDate: '2024-03-15T17:00:00',
    status: 'Submitted',
    customerRef: { id: '62' },
    metadata: { isDeleted: true },
    note: null,
    lineItems: [],
  },
  {
    id: 'r3',
    name: 'Beta && Sons',
    amount: 0,
    quantity: 10,
    issueDate: '2023-12-31T23:30:00.000Z',
    status: 'Draft',
    customerRef: { id: '61', name: 'Alpha' },
    lineItems: [],
  },
  {
    id: 'r4',
    name: '100% Pure_Water',
    amount: -20,
    quantity: 9,
    issueDate: '2024-03-01T00:00:00.000Z',
    dueDate: '2024-03-01T09:00:00',
    status: 'Void',
    customerRef: { id: '63', name: 'Gamma' },
    metadata: {},
    lineItems: [],
  },
  {
    id: 'r5',
    name: '1000 Pure-Water',
    amount: 49.99,
    quantity: 3,
    issueDate: '2024-01-01T00:00:00.001Z',
    status: 'PartiallyPaid',
    customerRef: { id: '64', name: 'Delta' },
    metadata: { isDeleted: false },
    lineItems: [],
  },
  {
    id: 'r6',
    name: 'Back\\slash {Co}',
    amount: 1000,
    quantity: 100,
    issueDate: '2022-06-30T08:00:00.000Z',
    dueDate: '2022-07-30T08:00:00',
    status: 'Paid',
    customerRef: { id: '65', name: "O'Brien" },
    note: 'x',
    lineItems: [],
  },
  {
    id: 'r7',
    name: 'École Ltd',
    amount: 75,
    quantity: 4,
    issueDate: '2024-05-05T05:05:05.000Z',
    dueDate: '2024-05-31T00:00:00',
    status: 'Draft',
    customerRef: { id: '66' },
    metadata: { isDeleted: false },
    lineItems: [],
  },
];
const ALL = ROWS.map((r) => r.id);
const except = (...ids: string[]) => ALL.filter((id) => !ids.includes(id));

let testStore: TestStore;
let db: Kysely<any>;
let resource: QueryableResource;

beforeAll(async () => {
  testStore = await createTestStore();
  db = testStore.store.db as Kysely<any>;
  await db.schema
    .createTable(TABLE)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('doc', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto(TABLE)
    .values(ROWS.map((r) => ({ id: r.id, doc: JSON.stringify(r) })))
    .execute();
  const dialect = testStore.store.dialect;
  resource = {
    typeName: 'Invoice',
    resolve: resolverFromSchema(Row, 'doc', dialect, {
      rowId: { type: 'string', exact: true, expr: sql`${sql.ref(`${TABLE}.id`)}` },
    }),
  };
});
afterAll(() => testStore?.destroy());

function where(text: string) {
  return compileQuery(parseQuery(text), resource, testStore.store.dialect);
}

async function ids(text: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM ${sql.table(TABLE)} WHERE ${where(text)} ORDER BY id`.execute(db);
  return rows.map((r) => r.id);
}

async function ordered(orderBy: string): Promise<string[]> {
  const terms = compileOrderBy(orderBy, resource);
  const { rows } = await sql<{ id: string }>`SELECT id FROM ${sql.table(TABLE)} ORDER BY ${sql.join([...terms, sql`id`])}`.execute(db);
  return rows.map((r) => r.id);
}

function semanticError(text: string): QuerySemanticError {
  try {
    where(text);
  } catch (err) {
    expect(err).toBeInstanceOf(QuerySemanticError);
    return err as QuerySemanticError;
  }
  throw new Error(`compiled without error: ${JSON.stringify(text)}`);
}

describe('compiled queries on the store', () => {
  it('the scratch table holds every row (sanity check of the fixture)', async () => {
    expect(await ids('amount>-1000000')).toEqual(ALL);
  });

  describe('strings', () => {
    it.each([
      ['name=Acme Ltd', ['r1']],
      ['name=acme ltd', ['r1']],
      ['name=ACME LTD', ['r1']],
      ['name = Acme Ltd ', ['r1']],
      ['name=Acme', []],
      ['name!=acme ltd', except('r1')],
      ['name~ACME', ['r1', 'r2']],
      ['name~ltd', ['r1', 'r7']],
      ['name~ holdings', ['r2']],
      ['customerRef.id=61', ['r1', 'r3']],
      ['customerRef.name=alpha', ['r1', 'r3']],
      ["customerRef.name=o'brien", ['r6']],
      [`customerRef.name="O'Brien"`, ['r6']],
      ['customerRef.name!=alpha', ['r2', 'r4', 'r5', 'r6', 'r7']],
    ])('%s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it.each([
      ['name~%', ['r4']],
      ['name~0%', ['r4']],
      ['name~_', ['r4']],
      ['name~Pure_Water', ['r4']],
      ['name~e_W', ['r4']],
      ['name~\\', ['r6']],
      ['name~\\s', ['r6']],
    ])('matches LIKE wildcards and backslashes literally: %s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it.each([
      ['name="Beta && Sons"', ['r3']],
      ["name='Beta && Sons'", ['r3']],
      ['name~"&&"', ['r3']],
      ["name='Beta && Sons' || amount=1000", ['r3', 'r6']],
      ['name="Back\\slash {Co}"', ['r6']],
      ['name~"{Co}"', ['r6']],
    ])('matches quoted values holding operators and braces: %s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it('matches non-ASCII text written with its stored case', async () => {
      expect(await ids('name~École')).toEqual(['r7']);
      expect(await ids('name=École Ltd')).toEqual(['r7']);
      expect(await ids('name~cole L')).toEqual(['r7']);
    });

    it('compares identifier overrides exactly (case-sensitively)', async () => {
      expect(await ids('rowId=r1')).toEqual(['r1']);
      expect(await ids('rowId=R1')).toEqual([]);
      expect(await ids('rowId!=r1')).toEqual(except('r1'));
    });

    it.each(['>', '<', '>=', '<='])('rejects %s on a string', (op) => {
      expect(semanticError(`name${op}a`).message).toBe(`Operator ${op} cannot be applied to property name of type string`);
    });
  });

  describe('numbers', () => {
    it.each([
      ['amount=100', ['r1']],
      ['amount=100.0', ['r1']],
      ['amount=250.5', ['r2']],
      ['amount!=100', except('r1')],
      ['amount>100', ['r2', 'r6']],
      ['amount >= 100', ['r1', 'r2', 'r6']],
      ['amount<0', ['r4']],
      ['amount<=0', ['r3', 'r4']],
      ['amount<50', ['r3', 'r4', 'r5']],
      ['amount>-20', ['r1', 'r2', 'r3', 'r5', 'r6', 'r7']],
      ['amount>=-20', ALL],
      // Numeric, not text, comparison: as text '10' and '100' sort before '9'.
      ['quantity>9', ['r3', 'r6']],
      ['quantity<10', ['r1', 'r2', 'r4', 'r5', 'r7']],
    ])('%s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it('rejects ~ on a number, and values that are not numbers', () => {
      expect(semanticError('amount~1').message).toBe('Operator ~ cannot be applied to property amount of type number');
      expect(semanticError('amount=abc').message).toBe('Value abc is not a number for property amount');
      expect(semanticError('amount>1e999').message).toBe('Value 1e999 is not a number for property amount');
      expect(semanticError('amount=>5').message).toBe('Value >5 is not a number for property amount');
    });
  });

  describe('dates', () => {
    it.each([
      ['issueDate=2024-01-01', ['r1']],
      ['issueDate>2024-01-01', ['r2', 'r4', 'r5', 'r7']],
      ['issueDate>=2024-01-01', ['r1', 'r2', 'r4', 'r5', 'r7']],
      ['issueDate<2024-01-01', ['r3', 'r6']],
      ['issueDate<=2024-01-01T00:00:00.001Z', ['r1', 'r3', 'r5', 'r6']],
      ['issueDate!=2024-01-01', except('r1')],
      ['issueDate=2024-01-01T00:00:00Z', ['r1']],
      ['issueDate = 2024-01-01T00:00:00.001Z', ['r5']],
      ['issueDate=2024-01-01T01:00:00+01:00', ['r1']],
      ['issueDate=2023-12-31T18:30:00-05:00', ['r3']],
      ['issueDate>=2024-01-01T00:30:00Z', ['r2', 'r4', 'r7']],
      ['issueDate>=2024-01-01T00:30:00+01:00', ['r1', 'r2', 'r3', 'r4', 'r5', 'r7']],
      ['issueDate>=2024-01-01T00:30:00+0100', ['r1', 'r2', 'r3', 'r4', 'r5', 'r7']],
    ])('instant: %s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it.each([
      ['dueDate=2024-01-31', ['r1']],
      ['dueDate<2024-03-01', ['r1', 'r6']],
      // Local dates ignore the offset: 08:00 wall time, not 13:00Z, so r4 (09:00) matches.
      ['dueDate>2024-03-01T08:00:00-05:00', ['r2', 'r4', 'r7']],
      ['dueDate!=2024-01-31', except('r1')],
    ])('local: %s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it('rejects ~ on a date, and values that are not dates', () => {
      expect(semanticError('issueDate~2024').message).toBe('Operator ~ cannot be applied to property issueDate of type date');
      expect(semanticError('issueDate>yesterday').message).toBe('Value yesterday is not a date for property issueDate');
      expect(semanticError('issueDate=2021-02-29').message).toBe('Value 2021-02-29 is not a date for property issueDate');
    });
  });

  describe('booleans', () => {
    it.each([
      ['metadata.isDeleted=true', ['r2']],
      ['metadata.isDeleted=TRUE', ['r2']],
      ['metadata.isDeleted=false', ['r1', 'r5', 'r7']],
      // A row without the property (r3, r6 have no metadata; r4 has an empty one) is "not equal".
      ['metadata.isDeleted!=true', ['r1', 'r3', 'r4', 'r5', 'r6', 'r7']],
      ['metadata.isDeleted!=false', ['r2', 'r3', 'r4', 'r6']],
    ])('%s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it.each(['>', '<', '>=', '<=', '~'])('rejects %s on a boolean', (op) => {
      expect(semanticError(`metadata.isDeleted${op}true`).message).toBe(
        `Operator ${op} cannot be applied to property metadata.isDeleted of type boolean`,
      );
    });

    it('rejects values other than true and false', () => {
      expect(semanticError('metadata.isDeleted=yes').message).toBe('Value yes is not true or false for property metadata.isDeleted');
      expect(semanticError('metadata.isDeleted=1').message).toBe('Value 1 is not true or false for property metadata.isDeleted');
    });
  });

  describe('enums', () => {
    it.each([
      ['status=Paid', ['r1', 'r6']],
      ['status=paid', ['r1', 'r6']],
      ['status=PAID', ['r1', 'r6']],
      ['status=partiallypaid', ['r5']],
      ['status!=paid', ['r2', 'r3', 'r4', 'r5', 'r7']],
      ['status~PAID', ['r1', 'r5', 'r6']],
      ['status=Refunded', []],
    ])('%s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it.each(['>', '<', '>=', '<='])('rejects %s on an enum', (op) => {
      expect(semanticError(`status${op}Paid`).message).toBe(`Operator ${op} cannot be applied to property status of type enum`);
    });
  });

  describe('null and missing values', () => {
    it('treats null as an ordinary string value that nothing stores (null cannot be queried)', async () => {
      expect(await ids('note=null')).toEqual([]);
      expect(await ids('note=first')).toEqual(['r1']);
    });

    it('!= matches rows where the property is null or missing', async () => {
      expect(await ids('note!=first')).toEqual(except('r1'));
      expect(await ids('customerRef.name!=gamma')).toEqual(except('r4'));
    });

    it('ordering comparisons never match a missing value', async () => {
      expect(await ids('dueDate>2000-01-01')).toEqual(['r1', 'r2', 'r4', 'r6', 'r7']);
      expect(await ids('dueDate<2100-01-01')).toEqual(['r1', 'r2', 'r4', 'r6', 'r7']);
    });
  });

  describe('&&, || and grouping', () => {
    it.each([
      ['customerRef.id=61 && amount>0', ['r1']],
      ['customerRef.id=61 || status=void', ['r1', 'r3', 'r4']],
      ['amount>100||amount<0', ['r2', 'r4', 'r6']],
      // a || b && c is a || (b && c): read left to right it would be only r7.
      ['status=Void || status=Draft && amount>0', ['r4', 'r7']],
      ['status=Draft && amount>0 || status=Void', ['r4', 'r7']],
      // Braces change it: without them r4 (Void) would match too.
      ['{status=Void || status=Paid} && amount>=1000', ['r6']],
      ['{amount > 100 || amount < 50} && status != paid', ['r2', 'r3', 'r4', 'r5']],
      ['{{customerRef.id=61 && {amount>50 || status=Draft}} || {name~pure && amount<0}} && issueDate<2024-06-01', ['r1', 'r3', 'r4']],
      ['{{{{name=acme ltd}}}}', ['r1']],
    ])('%s', async (text, expected) => {
      expect(await ids(text)).toEqual(expected);
    });

    it('runs a query at the length limit made of many terms', async () => {
      const term = 'name=zzz||';
      let text = '';
      while (text.length + term.length + 'name=acme ltd'.length < MAX_QUERY_LENGTH) text += term;
      text += 'name=acme ltd';
      expect(text.length).toBeGreaterThan(2030);
      expect(text.length).toBeLessThan(MAX_QUERY_LENGTH);
      expect(await ids(text)).toEqual(['r1']);
      const ands = `${'amount>-1&&'.repeat(180)}quantity=3`;
      expect(ands.length).toBeLessThan(MAX_QUERY_LENGTH);
      expect(await ids(ands)).toEqual(['r5']);
    });
  });

  describe('properties that cannot be queried', () => {
    it.each([
      'nope',
      'lineItems.unitAmount',
      'lineItems',
      'customerRef',
      'customerRef.nope',
      'name.first',
      'metadata',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'customerRef.constructor',
    ])('%s is unknown', (property) => {
      const err = semanticError(`${property}=1`);
      expect(err).toBeInstanceOf(UnknownPropertyError);
      expect(err.message).toBe(`Could not resolve property ${property} on Invoice`);
    });

    it('reports the first unknown property of a compound query', () => {
      expect(semanticError('name=x && {amount>1 || lineItems.unitAmount=700}').message).toBe(
        'Could not resolve property lineItems.unitAmount on Invoice',
      );
    });
  });

  describe('SQL injection', () => {
    it.each([
      "name=x' OR '1'='1",
      "name=x'; DROP TABLE query_lang_rows; --",
      "name~%' OR 1=1 --",
      'name=acme ltd) OR (1=1',
      "amount=1 || name=x' OR ''='",
    ])('%s matches nothing and leaves the table intact', async (text) => {
      expect(await ids(text)).toEqual([]);
      const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql.table(TABLE)}`.execute(db);
      expect(Number(rows[0].n)).toBe(ROWS.length);
    });

    it('binds values as parameters, never inlining them into the SQL text', () => {
      const value = "x' OR '1'='1";
      const compiled = sql`SELECT id FROM ${sql.table(TABLE)} WHERE ${where(`name=${value} || name~${value}`)}`.compile(db);
      expect(compiled.sql).not.toContain("OR '1'");
      expect(compiled.parameters).toContain(value);
      // Both the = value and the ~ pattern travel as parameters.
      expect(compiled.parameters.filter((p) => String(p).toLowerCase().includes(value.toLowerCase()))).toHaveLength(2);
    });
  });
});

describe('orderBy on the store', () => {
  it.each([
    ['amount', ['r4', 'r3', 'r5', 'r7', 'r1', 'r2', 'r6']],
    ['-amount', ['r6', 'r2', 'r1', 'r7', 'r5', 'r3', 'r4']],
    // Numeric order, not text order (which would put 10 and 100 before 2).
    ['quantity', ['r1', 'r2', 'r5', 'r7', 'r4', 'r3', 'r6']],
    ['-quantity', ['r6', 'r3', 'r4', 'r7', 'r5', 'r2', 'r1']],
    ['issueDate', ['r6', 'r3', 'r1', 'r5', 'r2', 'r4', 'r7']],
    ['-issueDate', ['r7', 'r4', 'r2', 'r5', 'r1', 'r3', 'r6']],
    // Missing values sort as the smallest: first ascending, last descending.
    ['dueDate', ['r3', 'r5', 'r6', 'r1', 'r4', 'r2', 'r7']],
    ['-dueDate', ['r7', 'r2', 'r4', 'r1', 'r6', 'r3', 'r5']],
    [' - amount ', ['r6', 'r2', 'r1', 'r7', 'r5', 'r3', 'r4']],
    ['customerRef.id,amount', ['r3', 'r1', 'r2', 'r4', 'r5', 'r6', 'r7']],
    ['customerRef.id,-amount', ['r1', 'r3', 'r2', 'r4', 'r5', 'r6', 'r7']],
  ])('%j', async (orderBy, expected) => {
    expect(await ordered(orderBy)).toEqual(expected);
  });

  it('rejects unknown and array properties', () => {
    for (const property of ['nope', 'lineItems', 'lineItems.unitAmount', 'customerRef', 'constructor']) {
      let thrown: unknown;
      try {
        compileOrderBy(property, resource);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, property).toBeInstanceOf(UnknownPropertyError);
      expect((thrown as Error).message).toBe(`Could not resolve property ${property} on Invoice`);
    }
  });

  it.each(['', ' ', '-', 'name desc', 'name,', ',name', '--name', 'name;DROP TABLE x', 'name)'])('rejects %j as malformed', (orderBy) => {
    let thrown: unknown;
    try {
      compileOrderBy(orderBy, resource);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(QuerySemanticError);
    expect((thrown as Error).message).toBe('Malformed orderBy.');
  });
});
