import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ConnectionSettings } from '../../../../src/connectors/sandbox/generated-source.js';
import type { DataType } from '../../../../src/codat-model/data-types.js';
import { accountingSandbox } from '../../../../src/connectors/sandbox/accounting/index.js';

/** Formats the schemas use (TypeBox checks only registered formats). */
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set(
    'date-time',
    (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.test(v) && !Number.isNaN(Date.parse(v)),
  );
}
if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => /^https?:\/\/\S+$/.test(v));

export const AS_OF = '2025-06-30';
export const settings = (invoices: number, seed = 11): ConnectionSettings => ({ seed, invoices, asOf: AS_OF });

/** A record as the service serves it: the data as JSON, plus `modifiedDate` and `metadata`. */
export interface Served {
  id: string;
  sourceModifiedDate: string | null;
  data: Record<string, any>;
  json: string;
}

const cache = new Map<string, Served[]>();

/** Every record of a data type at an epoch (JSON round-tripped, as stored), memoised per test file. */
export function fetchAll(dataType: DataType, s: ConnectionSettings, epoch: number): Served[] {
  const key = `${dataType}|${s.seed}|${s.invoices}|${s.asOf}|${epoch}`;
  let list = cache.get(key);
  if (!list) {
    const source = accountingSandbox.dataTypes.get(dataType);
    if (!source) throw new Error(`no source for ${dataType}`);
    list = [];
    for (const r of source.fetch({ settings: s, epoch })) {
      const json = JSON.stringify(r.data);
      list.push({ id: r.id, sourceModifiedDate: r.sourceModifiedDate, data: JSON.parse(json), json });
    }
    cache.set(key, list);
  }
  return list;
}

export function byId(list: Served[]): Map<string, Record<string, any>> {
  return new Map(list.map((r) => [r.id, r.data]));
}

export const cents = (v: number): number => Math.round(v * 100);

/** Schema errors of a served record, plus properties the schema does not declare and nulls. */
export function problems(schema: TSchema, data: Record<string, unknown>): string[] {
  const served = { ...data, modifiedDate: '2025-07-01T00:00:00Z', metadata: { isDeleted: false } };
  const out = Value.Check(schema, served) ? [] : [...Value.Errors(schema, served)].map((e) => `${e.path}: ${e.message}`);
  undeclared(schema as Node, served, '', out);
  return out;
}

interface Node {
  type?: string;
  properties?: Record<string, Node>;
  items?: Node;
  anyOf?: Node[];
}

function undeclared(schema: Node, value: unknown, path: string, out: string[]): void {
  if (value === null) {
    out.push(`${path}: null`);
    return;
  }
  if (schema.type === 'object' && schema.properties && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as object)) {
      const child = schema.properties[k];
      if (!child) out.push(`${path}/${k}: not in schema`);
      else undeclared(child, v, `${path}/${k}`, out);
    }
  } else if (schema.type === 'array' && schema.items && Array.isArray(value)) {
    value.forEach((v, i) => undeclared(schema.items as Node, v, `${path}/${i}`, out));
  }
}

/** Business-local dates have no offset; instants end in Z. */
export const LOCAL = /^\d{4}-\d{2}-\d{2}T00:00:00$/;
export const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Collects failed checks so a loop over thousands of records makes one assertion. */
export class Checks {
  readonly failures: string[] = [];

  ok(condition: unknown, message: string | (() => string)): void {
    if (!condition && this.failures.length < 20) this.failures.push(typeof message === 'string' ? message : message());
  }

  eq(actual: unknown, expected: unknown, message: string): void {
    if (actual !== expected && this.failures.length < 20) this.failures.push(`${message}: ${String(actual)} !== ${String(expected)}`);
  }
}

export const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
