import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { DATA_TYPES } from '../codat-model/data-types.js';

/** What a platform does with a data type, named as `/integrations` names it (Codat's `featureType`). */
export const Feature = Type.Union([Type.Literal('Get'), Type.Literal('Post'), Type.Literal('Put'), Type.Literal('Delete')]);
export type Feature = Static<typeof Feature>;

const Url = Type.String({ pattern: '^https?://' });
/** The name of an environment variable that overrides a declared value (the operator's, e.g. a recording proxy). */
const EnvName = Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' });

/**
 * An OAuth2 authorization code flow as data: the vendor's addresses, the scope asked and how the token endpoint
 * takes the client's credentials. `env` is the prefix of the environment's variables: `<env>_CLIENT_ID` (the
 * platform is offered once it is set), `<env>_CLIENT_SECRET`, and `<env>_AUTHORIZE_URL`, `<env>_TOKEN_URL`,
 * `<env>_REVOKE_URL` and `<env>_<NAME>` for each of `more`, each overriding the declared value.
 */
export const OAuthDeclaration = Type.Object(
  {
    env: EnvName,
    authorizeUrl: Url,
    tokenUrl: Url,
    revokeUrl: Type.Optional(Url),
    scope: Type.String({ minLength: 1 }),
    pkce: Type.Boolean(),
    /**
     * `basic`: HTTP Basic with the client id and secret, the grant as a form (RFC 6749 §2.3.1); `json-body`: both in
     * a JSON body beside the grant (Square); `form-secret`: the secret alone in the form (Stripe Connect).
     */
    clientAuthentication: Type.Union([Type.Literal('basic'), Type.Literal('json-body'), Type.Literal('form-secret')]),
    /** Further parameters of the authorize address (e.g. Square's `session=false`). */
    authorizeParams: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** The platform's other addresses and settings, by the variable's name without the prefix (e.g. `CONNECTIONS_URL`). */
    more: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }), Type.String())),
  },
  { additionalProperties: false },
);
export type OAuthDeclaration = Static<typeof OAuthDeclaration>;

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
            Type.Object({ fixed: Url, env: Type.Optional(EnvName) }, { additionalProperties: false }),
          ]),
          /**
           * The API version every request names, in a header or a query parameter, pinned to the version the mapping
           * and the tests are written against (a newer one is a deliberate change); `env` overrides it.
           */
          apiVersion: Type.Optional(
            Type.Object(
              {
                value: Type.String({ minLength: 1 }),
                header: Type.Optional(Type.String({ minLength: 1 })),
                query: Type.Optional(Type.String({ minLength: 1 })),
                env: Type.Optional(EnvName),
              },
              { additionalProperties: false },
            ),
          ),
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
          /**
           * Headers in which the platform says how many requests are left (Xero's `X-MinLimit-Remaining`, …), and what
           * each counts: `account`, this account's window (none of its requests starts until the window has passed);
           * `application`, this server's across every account (none starts for any); `day`, this account's day (a sync
           * is handed back instead of sending, and tried again in an hour). Heeded when one says 0.
           */
          remainingLimits: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  header: Type.String({ pattern: '^[a-z0-9-]+$' }),
                  scope: Type.Union([Type.Literal('account'), Type.Literal('application'), Type.Literal('day')]),
                },
                { additionalProperties: false },
              ),
              { minItems: 1 },
            ),
          ),
          /** How a list is read page by page, and how many records a page asks for where one size fits every list. */
          paging: Type.Object(
            {
              style: Type.Union([
                Type.Literal('none'),
                Type.Literal('page-number'),
                Type.Literal('offset'),
                Type.Literal('cursor'),
                Type.Literal('link-header'),
                Type.Literal('start-position'),
              ]),
              pageSize: Type.Optional(Type.Integer({ minimum: 1 })),
              /** The request parameter carrying the page size (`limit`, `pageSize`). */
              sizeParam: Type.Optional(Type.String({ minLength: 1 })),
              /**
               * The request parameter saying which page: `page-number`, the page's number from 1 (`page`); `offset`,
               * how many records come before it (`offset`); `cursor`, the cursor the page before handed on.
               */
              param: Type.Optional(Type.String({ minLength: 1 })),
              /** `cursor`: the answer's field holding the next page's cursor, or `last-id`: the page's last record's id. */
              next: Type.Optional(Type.String({ minLength: 1 })),
              /** `cursor` with `last-id`: the answer's field saying whether more pages follow (`has_more`). */
              more: Type.Optional(Type.String({ minLength: 1 })),
              /** The answer's field holding a page's records (`data`); absent, the answer is the records. */
              records: Type.Optional(Type.String({ minLength: 1 })),
              /**
               * `page-number`: the answer's field (a path, `pagination.pageCount`) saying how many pages there are: the
               * pages after the first are then asked ahead, as many at a time as `politeness.maxConcurrent`.
               */
              pageCount: Type.Optional(Type.String({ minLength: 1 })),
              /**
               * `start-position`: how many records each page reads again of the one before (positions shift when a
               * record is deleted mid-read; see declaredPages).
               */
              overlap: Type.Optional(Type.Integer({ minimum: 0 })),
            },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    ),
    /**
     * What data cannot say, kept as code beside the declaration and named here with why: `pageRequest`, a page's request
     * in the platform's own language (QuickBooks' `STARTPOSITION n MAXRESULTS m`); `instant`, the platform's way of
     * writing a time (Xero's `/Date(…)/`). The code registers exactly these (platformConnector checks it), and the
     * runtime calls only a hook the declaration names.
     */
    hooks: Type.Optional(
      Type.Partial(
        Type.Object(
          { pageRequest: Type.String({ minLength: 1 }), instant: Type.String({ minLength: 1 }) },
          { additionalProperties: false },
        ),
      ),
    ),
    /** For `authorization.kind: 'oauth2'`, and a platform offering OAuth beside another way in (Stripe Connect). */
    oauth2: Type.Optional(OAuthDeclaration),
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

/**
 * A platform's declaration from its YAML file (`platform.yaml` in the platform's folder, copied beside the built code),
 * checked as `declarePlatform` checks it; a file that is no YAML, or a declaration with a mistake, stops the start.
 */
export function loadPlatform<Part extends 'transport' | 'oauth2' = never>(
  file: URL,
  /** The parts the platform's code relies on (its API, its OAuth flow): a declaration without one stops the start. */
  requires: readonly Part[] = [],
): PlatformDeclaration & Required<Pick<PlatformDeclaration, Part>> {
  const text = readFileSync(file, 'utf8');
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new Error(`platform declaration ${fileURLToPath(file)} is not YAML: ${(err as Error).message}`);
  }
  const declaration = declarePlatform(data as PlatformDeclaration);
  const missing = requires.filter((part) => declaration[part] === undefined);
  if (missing.length > 0)
    throw new Error(`platform declaration ${fileURLToPath(file)} declares no ${missing.join(' and no ')}, which its code relies on`);
  return declaration as PlatformDeclaration & Required<Pick<PlatformDeclaration, Part>>;
}

/** The code a platform keeps for what its declaration cannot say, each named in the declaration's `hooks`. */
export interface PlatformHooks {
  /**
   * A page's request from its first record's position (from 1), its size and the list's parameters (what to read): the
   * query parameters that ask for it in the platform's own language.
   */
  pageRequest?(page: { position: number; size: number }, list: Readonly<Record<string, string>>): Record<string, string>;
  /** A time as the platform writes it, as ISO-8601 UTC (`2024-05-01T10:00:00Z`); undefined when absent or unreadable. */
  instant?(value: unknown): string | undefined;
}
export type HookName = keyof PlatformHooks;
export const HOOK_NAMES: readonly HookName[] = ['pageRequest', 'instant'];

/** Checks a declaration at load; a mistake stops the start with every problem listed. */
export function declarePlatform<T extends PlatformDeclaration>(declaration: T): T {
  const errors = [...Value.Errors(PlatformDeclaration, declaration)].map((e) => ({ path: e.path || '/', message: e.message }));
  // The problems outside the data types first, then each data type's together, so a list of them reads type by type.
  const problems = errors.filter((e) => !e.path.startsWith('/dataTypes/')).map((e) => `${e.path}: ${e.message}`);
  for (const [type, declared] of Object.entries(declaration.dataTypes ?? {})) {
    if (!(DATA_TYPES as readonly string[]).includes(type)) problems.push(`/dataTypes/${type}: not a data type`);
    for (const e of errors)
      if (e.path === `/dataTypes/${type}` || e.path.startsWith(`/dataTypes/${type}/`)) problems.push(`${e.path}: ${e.message}`);
    if (!declared?.features?.includes('Get')) problems.push(`/dataTypes/${type}/features: every data type declared is read (Get)`);
    // A cursor says how the platform's API is read: declared exactly where there is an API.
    if (declaration.transport && declared?.cursor === undefined)
      problems.push(`/dataTypes/${type}/cursor: required where the platform has a transport`);
    if (!declaration.transport && declared?.cursor !== undefined)
      problems.push(`/dataTypes/${type}/cursor: a platform without a transport reads no cursor`);
  }
  const paging = declaration.transport?.paging;
  if (paging?.style === 'start-position') {
    if (!declaration.hooks?.pageRequest)
      problems.push("/transport/paging/style: start-position pages in the platform's own language: declare hooks.pageRequest");
    // Each page must read some of the one before (to find where the read left off) and some new records.
    if (paging.pageSize === undefined || paging.pageSize < 2)
      problems.push('/transport/paging/pageSize: start-position pages hold 2 or more');
    if (paging.overlap === undefined || paging.overlap < 1 || (paging.pageSize !== undefined && paging.overlap >= paging.pageSize))
      problems.push('/transport/paging/overlap: start-position pages overlap by 1 or more, and by less than a page');
  }
  const version = declaration.transport?.apiVersion;
  if (version && (version.header === undefined) === (version.query === undefined))
    problems.push('/transport/apiVersion: names the version in a header or in a query parameter (one of them)');
  if (problems.length > 0)
    throw new Error(`platform declaration ${JSON.stringify(declaration.key)} is invalid:\n  ${problems.join('\n  ')}`);
  return declaration;
}
