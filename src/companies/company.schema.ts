import { Type } from '@sinclair/typebox';
import { Connection } from '../connections/connection.schema.js';

export const MAX_TAGS = 10;

export const Tags = Type.Record(Type.String(), Type.String({ maxLength: 100 }), {
  maxProperties: MAX_TAGS,
  propertyNames: { minLength: 1, maxLength: 27 },
  description: `Up to ${MAX_TAGS} key/value pairs; keys 1 to 27 characters, values up to 100.`,
});

const CompanyName = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    "Letters, digits, spaces and - ' , & @ . ? ! are kept; other characters are removed (`Company (Codat[1])` becomes `Company Codat1`).",
});

export const CompanyRequestBody = Type.Object(
  {
    name: CompanyName,
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    tags: Type.Optional(Tags),
  },
  { $id: 'CompanyRequestBody' },
);

export const CompanyUpdateRequest = Type.Object(
  {
    name: Type.Optional(CompanyName),
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    tags: Type.Optional(Type.Union([Tags, Type.Null()], { description: '`null` or `{}` removes every tag.' })),
  },
  { $id: 'CompanyUpdateRequest' },
);

export const CompanyReference = Type.Object({
  id: Type.Optional(Type.String({ format: 'uuid' })),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  links: Type.Optional(Type.Object({ portal: Type.Optional(Type.String()) })),
  tags: Type.Optional(Tags),
});

/** The Company resource (facts 1.1). Optional fields are omitted, never null: the official SDK rejects null. */
export const Company = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    redirect: Type.String({ format: 'uri', description: "The company's hosted Link page on this server." }),
    lastSync: Type.Optional(Type.String({ format: 'date-time' })),
    created: Type.String({ format: 'date-time' }),
    products: Type.Array(Type.String()),
    tags: Tags,
    referenceSubsidiaryCompanies: Type.Array(CompanyReference),
    dataConnections: Type.Array(Type.Ref(Connection)),
  },
  { $id: 'Company' },
);
