import { sql, type RawBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/**
 * The few SQL forms that differ between SQLite and Postgres. Everything else is written once with Kysely.
 * JSON paths and column names are inlined (expression indexes only match literal paths), so both are
 * checked against a strict identifier pattern here; values are always bound parameters.
 */
export interface SqlDialect {
  name: DialectName;
  /** A JSON property as text (strings as-is, numbers and booleans as their JSON text). */
  jsonText(column: string, path: readonly string[]): RawBuilder<unknown>;
  /** A JSON property as a number. */
  jsonNumber(column: string, path: readonly string[]): RawBuilder<unknown>;
  /** A JSON property as a boolean, comparable with {@link SqlDialect.boolValue}. */
  jsonBool(column: string, path: readonly string[]): RawBuilder<unknown>;
  /** The bound form of a boolean this dialect's jsonBool compares against. */
  boolValue(value: boolean): unknown;
  /** `a` differs from `b`, treating NULL as an ordinary value (so a missing property is "not equal"). */
  distinctFrom(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`unsafe SQL identifier: ${JSON.stringify(name)}`);
  return name;
}

function checkedPath(path: readonly string[]): readonly string[] {
  if (path.length === 0) throw new Error('empty JSON path');
  path.forEach(assertIdentifier);
  return path;
}

const sqlite: SqlDialect = {
  name: 'sqlite',
  jsonText(column, path) {
    return sql`json_extract(${sql.raw(assertIdentifier(column))}, ${sql.raw(`'$.${checkedPath(path).join('.')}'`)})`;
  },
  jsonNumber(column, path) {
    return this.jsonText(column, path);
  },
  jsonBool(column, path) {
    // json_extract maps JSON true/false to 1/0.
    return this.jsonText(column, path);
  },
  boolValue: (value) => (value ? 1 : 0),
  distinctFrom: (a, b) => sql`(${a} IS NOT ${b})`,
};

const postgres: SqlDialect = {
  name: 'postgres',
  jsonText(column, path) {
    return sql`(${sql.raw(assertIdentifier(column))}::jsonb #>> ${sql.raw(`'{${checkedPath(path).join(',')}}'`)})`;
  },
  jsonNumber(column, path) {
    return sql`(${this.jsonText(column, path)})::numeric`;
  },
  jsonBool(column, path) {
    return sql`(${this.jsonText(column, path)})::boolean`;
  },
  boolValue: (value) => value,
  distinctFrom: (a, b) => sql`(${a} IS DISTINCT FROM ${b})`,
};

export function createSqlDialect(name: DialectName): SqlDialect {
  return name === 'sqlite' ? sqlite : postgres;
}
