import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DATA_TYPES } from '../codat-model/data-types.js';

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
    transport: Type.Object(
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
    /** Per data type: how a sync reads it (`none`: always in full; otherwise the field a delta read starts from). */
    dataTypes: Type.Record(
      Type.String(),
      Type.Object({ cursor: Type.Union([Type.Literal('none'), Type.Object({ field: Type.String() })]) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type PlatformDeclaration = Static<typeof PlatformDeclaration>;

/** Checks a declaration at load; a mistake stops the start with every problem listed. */
export function declarePlatform<T extends PlatformDeclaration>(declaration: T): T {
  const problems = [...Value.Errors(PlatformDeclaration, declaration)].map((e) => `${e.path || '/'}: ${e.message}`);
  for (const type of Object.keys(declaration.dataTypes ?? {})) {
    if (!(DATA_TYPES as readonly string[]).includes(type)) problems.push(`/dataTypes/${type}: not a data type`);
  }
  if (problems.length > 0)
    throw new Error(`platform declaration ${JSON.stringify(declaration.key)} is invalid:\n  ${problems.join('\n  ')}`);
  return declaration;
}
