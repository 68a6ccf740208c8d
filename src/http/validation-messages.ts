import type { ErrorObject } from 'ajv';
import type { ValidationItem } from './api-error.js';

/** Turns schema validation failures into validation items that name the offending parameter or field. */
export function validationItems(errors: readonly ErrorObject[], part: string, validatorName: string): ValidationItem[] {
  const seen = new Set<string>();
  const items: ValidationItem[] = [];
  for (const error of errors) {
    // A failed `propertyNames` also reports the inner keyword; one item per problem is enough.
    if (error.propertyName !== undefined && error.keyword !== 'propertyNames') continue;
    const itemId = fieldName(error, part);
    const message = describe(error, itemId);
    const key = `${itemId}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ itemId, message, validatorName });
  }
  return items;
}

function fieldName(error: ErrorObject, part: string): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  return segments.length > 0 ? segments.join('.') : part;
}

function describe(error: ErrorObject, name: string): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${name} is required`;
    case 'type':
      return `${name} must be ${article(String(p.type))}`;
    case 'minimum':
      return `${name} must be at least ${p.limit}`;
    case 'maximum':
      return `${name} must be at most ${p.limit}`;
    case 'minLength':
      return `${name} must be at least ${p.limit} character${p.limit === 1 ? '' : 's'} long`;
    case 'maxLength':
      return `${name} must be at most ${p.limit} characters long`;
    case 'maxProperties':
      return `${name} can have at most ${p.limit} entries`;
    case 'maxItems':
      return `${name} can have at most ${p.limit} items`;
    case 'propertyNames':
      return `${name} has a key of the wrong length (keys must be 1 to 27 characters)`;
    case 'format':
      return `${name} must be ${formatName(String(p.format))}`;
    case 'pattern':
      return /url/i.test(name) ? `${name} must be an http or https address` : `${name} is not in the expected format`;
    case 'enum':
      return `${name} must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `${name} must be ${JSON.stringify(p.allowedValue)}`;
    case 'additionalProperties':
      return `${name} is not allowed`;
    case 'anyOf':
      return `${name} does not match any allowed form`;
    default:
      return `${name} ${error.message ?? 'is invalid'}`;
  }
}

function article(type: string): string {
  const readable = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(readable) ? `an ${readable}` : `a ${readable}`;
}

function formatName(format: string): string {
  switch (format) {
    case 'uuid':
      return 'a GUID';
    case 'date-time':
      return 'an ISO-8601 date and time';
    case 'uri':
      return 'an absolute address';
    default:
      return `a valid ${format}`;
  }
}
