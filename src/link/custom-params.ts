import { isReservedPlaceholder } from './redirect.js';

/**
 * Custom redirect placeholders: query parameters the client appended to a Link URL
 * (`/link/company/{id}?customParam=123` fills `{customParam}`). They ride along the whole flow as hidden form
 * fields named `custom.<name>` (so they cannot collide with the form's own fields) and as query parameters.
 */
export type CustomParams = ReadonlyMap<string, string>;

const NAME = /^[A-Za-z0-9_.~-]{1,64}$/;
const MAX_PARAMS = 20;
const MAX_VALUE_LENGTH = 1000;
export const CUSTOM_FIELD_PREFIX = 'custom.';

function collect(entries: Iterable<[string, string]>): Map<string, string> {
  const params = new Map<string, string>();
  for (const [name, value] of entries) {
    if (params.size >= MAX_PARAMS) break;
    if (!NAME.test(name) || isReservedPlaceholder(name) || params.has(name)) continue;
    if (value.length > MAX_VALUE_LENGTH) continue;
    params.set(name, value);
  }
  return params;
}

/** The custom parameters of a page request's query string (the first value of each name). */
export function customParamsFromUrl(url: string): CustomParams {
  const q = url.indexOf('?');
  return collect(q < 0 ? [] : new URLSearchParams(url.slice(q + 1)));
}

/** The custom parameters carried in a submitted form's `custom.<name>` fields. */
export function customParamsFromForm(form: FormFields): CustomParams {
  const entries: [string, string][] = [];
  for (const [field, value] of form) {
    if (field.startsWith(CUSTOM_FIELD_PREFIX)) entries.push([field.slice(CUSTOM_FIELD_PREFIX.length), value]);
  }
  return collect(entries);
}

/** `?a=1&b=2` (or an empty string) to append to a Link page address. */
export function customQuery(params: CustomParams, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams(extra);
  for (const [name, value] of params) search.append(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A submitted form: the first value of each field, strings only. */
export type FormFields = ReadonlyMap<string, string>;

export function formFields(body: unknown): FormFields {
  const fields = new Map<string, string>();
  if (body instanceof URLSearchParams) {
    for (const [k, v] of body) if (!fields.has(k)) fields.set(k, v);
  } else if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') fields.set(k, v);
  }
  return fields;
}
