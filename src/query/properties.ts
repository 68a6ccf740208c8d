import type { RawBuilder } from 'kysely';
import type { ComparisonOperator } from './query-parser.js';

export type PropertyType = 'string' | 'number' | 'boolean' | 'date' | 'enum';

/** What a queryable property is, and the SQL expression that reads it. */
export interface PropertyDef {
  type: PropertyType;
  /** The SQL expression holding the value (a column or a JSON extraction). */
  expr: RawBuilder<unknown>;
  /** Canonical enum values; query values are matched to them case-insensitively. */
  enumValues?: readonly string[];
  /**
   * How dates are stored: `instant` as `toISOString()` text (UTC, milliseconds, `Z`);
   * `local` as `YYYY-MM-DDTHH:mm:ss` business-local text without an offset.
   */
  dateStyle?: 'instant' | 'local';
  /** Strings compared case-sensitively (identifiers); other strings compare case-insensitively. */
  exact?: boolean;
  /** A property that is not a plain value (e.g. an array on companies): compiles its own condition. */
  compile?: (op: ComparisonOperator, value: string) => RawBuilder<unknown>;
  /** False for properties that can be filtered on but not sorted by. */
  sortable?: boolean;
}

/** Maps a dotted property path to its definition, or undefined when the resource has no such property. */
export type PropertyResolver = (path: readonly string[]) => PropertyDef | undefined;

/** A list resource as the query engine sees it: its name in error messages and its properties. */
export interface QueryableResource {
  /** Name used in `Could not resolve property X on <typeName>`. */
  typeName: string;
  resolve: PropertyResolver;
}
