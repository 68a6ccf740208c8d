import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DATA_TYPES } from '../codat-model/data-types.js';

/** What a platform does with a data type, named as `/integrations` names it (Codat's `featureType`). */
export const Feature = Type.Union([Type.Literal('Get'), Type.Literal('Post'), Type.Literal('Put'), Type.Literal('Delete')]);
export type Feature = Static<typeof Feature>;

/**
 * A platform declared as data, the way Nango's provider file and Airbyte's manifests do it: identity, how a
 * connection is authorised, and how its API is called (retries, rate limits, paging, cursors), validated at
 * start. What data cannot say (mapping a record, the platform's query language) stays in a small TypeScript
 * module per data type beside it.
 */
export const PlatformDeclaration = Type.Object(
  {
    key: Type.String({ pattern: '^[a-z]{4}$', description: 'Four lower-case letters.' }),
    name: Type.String({ minLength: 1 }),
    sourceType: Type.Union([Type.Literal('Accounting'), Type.Literal('Banking'), Type.Literal('Commerce')]),
    brandColour: Type.String({ pattern: '^#[0-9a-f]{6}$' }),
    authorization: Type.Union([
      Type.Object({ kind: Type.Literal('none') }, { additionalProperties: false }),
      /** Nothing to sign in to: the connection's data is what the company uploads (the Link page offers the upload). */
      Type.Object({ kind: Type.Literal('files') }, { additionalProperties: false }),
      Type.Object({ kind: Type.Literal('oauth2') }, { additionalProperties: false }),
      Type.Object(
        {
          kind: Type.Literal('credentials'),
          fields: Type.Array(
            Type.Object(
              {
                name: Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9_]*$' }),
                label: Type.String({ minLength: 1 }),
                type: Type.Union([Type.Literal('url'), Type.Literal('text'), Type.Literal('password')]),
                required: Type.Boolean(),
                hint: Type.Optional(Type.String()),
              },
              { additionalProperties: false },
            ),
            { minItems: 1 },
          ),
        },
        { additionalProperties: false },
      ),
    ]),
    /** How the platform's API is called; absent for a platform with no API to call (the Sandboxes, uploaded files). */
    transport: Type.Optional(
      Type.Object(
        {
          /** The setting holding the API's base address (an end user's server), or a fixed address. */
          baseUrl: Type.Union([
            Type.Object({ setting: Type.String() }, { additionalProperties: false }),
            Type.Object({ fixed: Type.String({ pattern: '^https?://' }) }, { additionalProperties: false }),
          ]),
          timeoutMs: Type.Integer({ minimum: 100 }),
          retry: Type.Object(
            {
              attempts: Type.Integer({ minimum: 1, maximum: 10 }),
              backoffMs: Type.Integer({ minimum: 0 }),
              /** The response header that says how long to wait after a 429. */
              retryAfterHeader: Type.String(),
            },
            { additionalProperties: false },
          ),
          politeness: Type.Object(
            {
              maxConcurrent: Type.Integer({ minimum: 1 }),
              requests: Type.Integer({ minimum: 1 }),
              windowMs: Type.Integer({ minimum: 1 }),
            },
            { additionalProperties: false },
          ),
          paging: Type.Union([Type.Literal('none'), Type.Literal('page-number'), Type.Literal('cursor')]),
        },
        { additionalProperties: false },
      ),
    ),
    /**
     * Per data type: what the platform does with it, as `/integrations` says (`Get`; `Post`, `Put`, `Delete`: the
     * writes it takes), and, for a platform with a transport, how a sync reads it (`cursor`: `none`, always in full;
     * otherwise the field a delta read starts from). In the order `/integrations` lists them.
     */
    dataTypes: Type.Record(
      Type.String(),
      Type.Object(
        {
          features: Type.Array(Feature, { minItems: 1, uniqueItems: true }),
          cursor: Type.Optional(Type.Union([Type.Literal('none'), Type.Object({ field: Type.String() })])),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type PlatformDeclaration = Static<typeof PlatformDeclaration>;

/** Checks a declaration at load; a mistake stops the start with every problem listed. */
export function declarePlatform<T extends PlatformDeclaration>(declaration: T): T {
  const problems = [...Value.Errors(PlatformDeclaration, declaration)].map((e) => `${e.path || '/'}: ${e.message}`);
  for (const [type, declared] of Object.entries(declaration.dataTypes ?? {})) {
    if (!(DATA_TYPES as readonly string[]).includes(type)) problems.push(`/dataTypes/${type}: not a data type`);
    if (!declared?.features?.includes('Get')) problems.push(`/dataTypes/${type}/features: every data type declared is read (Get)`);
    // A cursor says how the platform's API is read: declared exactly where there is an API.
    if (declaration.transport && declared?.cursor === undefined)
      problems.push(`/dataTypes/${type}/cursor: required where the platform has a transport`);
    if (!declaration.transport && declared?.cursor !== undefined)
      problems.push(`/dataTypes/${type}/cursor: a platform without a transport reads no cursor`);
  }
  if (problems.length > 0)
    throw new Error(`platform declaration ${JSON.stringify(declaration.key)} is invalid:\n  ${problems.join('\n  ')}`);
  return declaration;
}
