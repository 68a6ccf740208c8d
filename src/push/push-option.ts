import { KindGuard, type Static, type TSchema, Type } from '@sinclair/typebox';
import type { WriteModel } from '../connectors/connector.js';
import { enumValues, withoutNull } from '../codat-model/write-schema.js';

/** Codat's PushOption (Codat-Platform.json `components.schemas.PushOption`): the fields a write of a data type takes. */

const PUSH_OPTION_TYPES = ['Array', 'Object', 'String', 'Number', 'Boolean', 'DateTime', 'File', 'MultiPart'] as const;
type PushOptionType = (typeof PUSH_OPTION_TYPES)[number];

const OptionType = Type.Union(
  PUSH_OPTION_TYPES.map((t) => Type.Literal(t)),
  { title: 'Option Type', description: 'The option type.' },
);
const DisplayName = Type.String({ minLength: 1, description: "The property's display name." });
const Description = Type.String({ description: 'A description of the property.' });
const Required = Type.Boolean({ description: 'The property is required if `True`.' });
const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const PushOptionChoice = Type.Object(
  {
    value: Type.Optional(Type.String({ minLength: 1, description: 'Allowed value for field.' })),
    type: Type.Optional(OptionType),
    displayName: Type.Optional(DisplayName),
    description: Type.Optional(Description),
    required: Type.Optional(Required),
  },
  { title: 'Push Option Choice' },
);

const PushFieldValidation = Type.Object(
  {
    field: Type.Optional(Type.String({ description: 'Field name that resulted in the validation issue.' })),
    details: Type.String({ minLength: 1, description: 'Details on the validation issue.' }),
    ref: nullable(Type.String({ format: 'uri', description: 'Unique reference identifier for the validation issue.' })),
  },
  { title: 'Push field validation', additionalProperties: false },
);

const PushValidationInfo = Type.Object(
  { warnings: nullable(Type.Array(PushFieldValidation)), information: nullable(Type.Array(PushFieldValidation)) },
  { title: 'Push validation info', additionalProperties: false },
);

const PushOptionProperty = Type.Recursive(
  (This) =>
    Type.Object({
      type: OptionType,
      displayName: DisplayName,
      description: Description,
      required: Required,
      properties: nullable(Type.Record(Type.String(), This)),
      options: nullable(Type.Array(PushOptionChoice)),
      validation: Type.Optional(PushValidationInfo),
    }),
  { $id: 'PushOptionProperty', title: 'Push Option Property' },
);

export const PushOption = Type.Object(
  {
    type: OptionType,
    displayName: DisplayName,
    description: Type.Optional(Description),
    required: Required,
    properties: nullable(Type.Record(Type.String(), PushOptionProperty)),
    options: nullable(Type.Array(PushOptionChoice)),
    validation: nullable(PushValidationInfo),
  },
  { $id: 'PushOption', title: 'Push option' },
);

type PushOptionDoc = Static<typeof PushOption>;
type PushOptionPropertyDoc = Static<typeof PushOptionProperty>;

/**
 * The PushOption of a write model, read off its schema: every writable field with its type, a display name,
 * a description, whether it is required, the choices of an enum, and the fields of nested objects and of array
 * items. Fields that name other records are listed under `validation.information`, since the write is refused
 * when such a record does not exist.
 */
export function pushOption(model: WriteModel, displayName: string): PushOptionDoc {
  const typeName = phrase(words(model.schema.title ?? model.dataType));
  const verbs = model.operations.filter((op) => op !== 'Delete').map((op) => op.toLowerCase());
  const targets = new Map(model.references.map((ref) => [ref.path.join('.'), ref.dataType]));
  const option: PushOptionDoc = {
    type: 'Object',
    displayName,
    description: `The fields of ${withArticle(typeName)} that the platform accepts when you ${verbs.join(' or ')} one.`,
    required: true,
    properties: propertiesOf(model.schema, { owner: typeName, path: [], targets }),
  };
  if (model.references.length > 0) {
    option.validation = {
      warnings: [],
      information: model.references.map((ref) => ({
        field: ref.path.filter((step) => step !== '*').join('.'),
        details: `Must be the id of an existing ${ref.dataType} record of this connection.`,
      })),
    };
  }
  return option;
}

/** Where a walk of the schema is: the owner's name for descriptions, the path for matching references. */
interface Place {
  owner: string;
  path: string[];
  /** Data type named by each reference field, by its path (`lineItems.*.itemRef.id`). */
  targets: ReadonlyMap<string, string>;
}

function propertiesOf(schema: TSchema, place: Place): Record<string, PushOptionPropertyDoc> {
  if (!KindGuard.IsObject(schema)) return {};
  const required = new Set(schema.required ?? []);
  return Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => [name, propertyOf(name, property, required.has(name), place)]),
  );
}

function propertyOf(name: string, schema: TSchema, required: boolean, place: Place): PushOptionPropertyDoc {
  const node = withoutNull(schema);
  const type = optionType(node);
  const label = words(name);
  const path = [...place.path, name];
  const entry: PushOptionPropertyDoc = {
    type,
    displayName: sentenceCase(label),
    description: describe(label, node, type, place.owner, place.targets.get(path.join('.'))),
    required,
  };
  const values = enumValues(node);
  if (values) entry.options = values.map((value) => ({ value, type: 'String', displayName: sentenceCase(words(value)), required: false }));
  const array = KindGuard.IsArray(node);
  const fields = array ? withoutNull(node.items) : node;
  if (KindGuard.IsObject(fields)) {
    const owner = phrase(array ? singular(label) : label);
    entry.properties = propertiesOf(fields, { owner, path: array ? [...path, '*'] : path, targets: place.targets });
  }
  return entry;
}

function optionType(schema: TSchema): PushOptionType {
  if (KindGuard.IsArray(schema)) return 'Array';
  if (KindGuard.IsObject(schema) || KindGuard.IsRecord(schema)) return 'Object';
  if (KindGuard.IsNumber(schema) || KindGuard.IsInteger(schema)) return 'Number';
  if (KindGuard.IsBoolean(schema)) return 'Boolean';
  if (KindGuard.IsString(schema) && schema.format === 'date-time') return 'DateTime';
  return 'String';
}

function describe(label: string[], schema: TSchema, type: PushOptionType, owner: string, target: string | undefined): string {
  const subject = `The ${phrase(label)} of the ${owner}`;
  if (target) return `${subject}: the id of an existing ${target} record.`;
  if (type === 'DateTime') return `${subject}, as an ISO-8601 date or date and time (e.g. 2022-10-23 or 2022-10-23T00:00:00).`;
  if (typeof schema.description === 'string') return `${subject} (${lowerFirst(schema.description)}).`;
  return `${subject}.`;
}

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/** The words of a camelCase name or enum value, with Codat's abbreviations spelt out (`customerRef` → customer reference). */
function words(name: string): string[] {
  if (name === 'iBan') return ['IBAN'];
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([a-zA-Z])(\d)/g, '$1 $2')
    .split(' ')
    .map((word) => {
      const lower = word.toLowerCase();
      if (lower === 'ref') return 'reference';
      if (lower === 'refs') return 'references';
      if (lower === 'id') return 'ID';
      return word;
    });
}

/** The words in running text: lower case, except abbreviations (`ID`, `IBAN`). */
function phrase(label: string[]): string {
  return label.map((w) => (w.length > 1 && w === w.toUpperCase() ? w : w.toLowerCase())).join(' ');
}

function sentenceCase(label: string[]): string {
  const text = phrase(label);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `line items` → `line item`, for naming the owner of an array item's fields. */
function singular(label: string[]): string[] {
  const last = label[label.length - 1];
  const one = last.endsWith('ies')
    ? `${last.slice(0, -3)}y`
    : last.endsWith('sses')
      ? last.slice(0, -2)
      : last.endsWith('s') && !last.endsWith('ss')
        ? last.slice(0, -1)
        : last;
  return [...label.slice(0, -1), one];
}

function withArticle(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}
