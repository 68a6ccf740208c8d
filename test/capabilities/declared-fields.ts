import type { TSchema } from '@sinclair/typebox';
import type { TestRun } from './capability-evidence.js';

/*
 * Every field a platform declaration can hold is read by the runtime: a test changes it (withDeclared,
 * test/helpers/declared.ts) and sees the platform, or the runtime's stand-in for one, asked accordingly. These are the
 * pure parts of that check: the fields of the declaration's schema, what one change covers, and what is left unread.
 */

/** One field a test changed, by its schema path (`transport.paging.pageSize`, `dataTypes.*.cursor.field`). */
export interface FieldRecord {
  platform: string;
  field: string;
  file: string;
  test: string;
}

/**
 * The fields whose reading another check proves: what each data type claims (`features`) is the capability check's
 * (capability-matrix.json), each claim backed by the test that exercised it.
 */
export const PROVED_ELSEWHERE: readonly string[] = ['dataTypes.*.features', 'dataTypes.*.features.*'];

/** The fields a declaration can hold that carry a value (the schema's leaves), which the check asks a test to change. */
export function declarationLeaves(schema: TSchema): string[] {
  const fields = schemaFields(schema);
  return fields.filter((field) => !fields.some((other) => other.startsWith(`${field}.`)));
}

/** The schema's fields, by path: each object's properties, `*` for a record's keys and an array's items; union members merged. */
export function schemaFields(schema: TSchema, at = ''): string[] {
  const here = at === '' ? [] : [at];
  const join = (name: string) => (at === '' ? name : `${at}.${name}`);
  if (schema.anyOf) return unique([...here, ...(schema.anyOf as TSchema[]).flatMap((member) => schemaFields(member, at))]);
  if (schema.type === 'object' && schema.properties)
    return unique([
      ...here,
      ...Object.entries(schema.properties as Record<string, TSchema>).flatMap(([name, s]) => schemaFields(s, join(name))),
    ]);
  if (schema.type === 'object' && schema.patternProperties)
    return unique([
      ...here,
      ...Object.values(schema.patternProperties as Record<string, TSchema>).flatMap((s) => schemaFields(s, join('*'))),
    ]);
  if (schema.type === 'array' && schema.items) return unique([...here, ...schemaFields(schema.items as TSchema, join('*'))]);
  return here;
}

/**
 * The fields a change covers: those whose value it changes, by the schema's names (a data type's name, a record's key
 * and an array's index are `*`). A field set to the value it had covers nothing; setting an object covers each field
 * of it that differs (a new `paging` covers its style, page size, …), and removing one covers each field it held.
 */
export function fieldsChanged(path: string, before: unknown, after: unknown, fields: readonly string[]): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  const changed: string[][] = [];
  const walk = (at: string[], was: unknown, now: unknown) => {
    if (isObject(was) || isObject(now)) {
      const keys = new Set([...Object.keys(isObject(was) ? was : {}), ...Object.keys(isObject(now) ? now : {})]);
      for (const key of keys) walk([...at, key], isObject(was) ? was[key] : undefined, isObject(now) ? now[key] : undefined);
      // An object put in place of a value (or a value in place of an object) changes the field itself too.
      if (isObject(was) !== isObject(now)) changed.push(at);
      return;
    }
    if (!Object.is(was, now)) changed.push(at);
  };
  walk(path.split('.'), before, after);
  const named = (parts: string[]) => {
    const out: string[] = [];
    for (const part of parts) {
      const exact = [...out, part].join('.');
      out.push(fields.some((f) => f === exact || f.startsWith(`${exact}.`)) ? part : '*');
    }
    return out.join('.');
  };
  return unique(changed.map(named));
}

/**
 * The fields no passing test changed. A record counts only where its test passed (a failed or skipped test proved
 * nothing). Fields of `PROVED_ELSEWHERE` are left out.
 */
export function unreadFields(input: { fields: readonly string[]; records: readonly FieldRecord[]; tests: readonly TestRun[] }): string[] {
  const passed = new Set(input.tests.filter((t) => t.state === 'passed').map((t) => `${t.file} :: ${t.test}`));
  const changed = new Set(input.records.filter((r) => passed.has(`${r.file} :: ${r.test}`)).map((r) => r.field));
  return input.fields.filter((field) => !PROVED_ELSEWHERE.includes(field) && !changed.has(field));
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
