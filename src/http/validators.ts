import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { errorCodes, type FastifyInstance, type FastifySchema } from 'fastify';
import { refuseNulCharacters } from './nul-guard.js';
import { assertJsonDepth } from './json-limits.js';
import { validationError } from './api-error.js';
import { validationItems } from './validation-messages.js';

/**
 * Route schema validation. Path and query parameters are text on the wire, so they are coerced to the
 * declared types; JSON bodies are not, so a wrong type in a body is a 400 rather than silently converted.
 * All errors are collected, so a bad request gets one validation item per problem.
 */
const COMMON = { allErrors: true, useDefaults: true, strict: false } as const;
const newBodyAjv = () => addFormats.default(new Ajv.default({ ...COMMON, coerceTypes: false }));

export function installValidators(app: FastifyInstance): void {
  const forParameters = addFormats.default(new Ajv.default({ ...COMMON, coerceTypes: 'array' }));
  const forBodies = newBodyAjv();
  const cache = new WeakMap<object, ValidateFunction>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? forBodies : forParameters;
    const key = schema as object;
    let validate = cache.get(key);
    if (!validate) {
      // Named schemas are shared with the OpenAPI document; compile a copy without the id so that
      // one schema can validate several routes.
      const { $id: _id, ...anonymous } = schema as FastifySchema & { $id?: string };
      validate = ajv.compile(anonymous);
      if (httpPart !== 'body') validate = withDecimalIntegers(validate, anonymous as ParameterSchema);
      cache.set(key, validate);
    }
    return validate;
  });
  app.addHook('preValidation', refuseNulCharacters);
  // The API speaks JSON only: any other body type is refused (400) rather than parsed as text.
  app.removeContentTypeParser('text/plain');
  // An empty body labelled application/json is no body: the official SDK sends exactly that when an optional
  // body is left out (e.g. `settings.createApiKey()`). The route's body schema then decides whether one was
  // required. Anything else goes through Fastify's own JSON parser (malformed JSON stays a 400).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      assertJsonDepth(body as string);
    } catch (err) {
      return done(err as Error, undefined);
    }
    return parseJson(request, body as string, done);
  });
  // The official SDK labels its bodiless POSTs (`companyInfo.refresh()`) application/x-www-form-urlencoded, with
  // Content-Length 0: that is no body whatever the label, as for JSON above. A body of any other type is refused.
  // A request no route takes is answered 404 or 405 whatever its body, as Fastify does when no parser matches.
  app.addContentTypeParser('*', (request, _payload, done) => {
    const length = request.headers['content-length'];
    const empty = (length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined;
    if (empty || request.is404) return done(null, undefined);
    return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']), undefined);
  });
  // Responses are either stored JSON text sent as-is or small objects built to their schema:
  // response schemas document the API; they are not a second serializer.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

type ParameterSchema = { properties?: Record<string, { type?: unknown }> };

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;
/** An optional minus and decimal digits, no leading zero: what `Number()` would read differently is refused. */
const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]{0,9})$/;

/**
 * Integer path and query parameters are int32 in Codat's API. Ajv's coercion goes through `Number()`, which reads
 * `0x10`, `1e3`, `+1`, ` 1`, `01` and `Infinity` as numbers; here only decimal digits within int32 are numbers.
 * Offending parameters are reported the way Ajv reports them (so one renderer words every item), together with
 * whatever else the schema finds wrong.
 */
function withDecimalIntegers(validate: ValidateFunction, schema: ParameterSchema): ValidateFunction {
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  const checked = ((data: Record<string, unknown> | null) => {
    const errors: ErrorObject[] = [];
    for (const name of integers) {
      const raw = data?.[name];
      // Repeated parameters arrive as arrays: Ajv refuses those itself.
      if (typeof raw !== 'string') continue;
      const error = decimalIntegerError(name, raw);
      if (error) errors.push(error);
    }
    if (errors.length === 0) {
      const valid = validate(data);
      checked.errors = validate.errors;
      return valid;
    }
    // The rest of the parameters are still checked, without the refused ones (and without calling them missing).
    const refused = new Set(errors.map((e) => e.instancePath.slice(1)));
    const rest = Object.fromEntries(Object.entries(data ?? {}).filter(([name]) => !refused.has(name)));
    validate(rest);
    const others = (validate.errors ?? []).filter((e) => !(e.keyword === 'required' && refused.has(String(e.params.missingProperty))));
    checked.errors = [...errors, ...others];
    return false;
  }) as ValidateFunction;
  return checked;
}

function decimalIntegerError(name: string, raw: string): ErrorObject | undefined {
  const instancePath = `/${name}`;
  if (!DECIMAL_INTEGER.test(raw)) {
    return {
      instancePath,
      schemaPath: `#/properties/${name}/type`,
      keyword: 'type',
      params: { type: 'integer' },
      message: 'must be integer',
    };
  }
  const value = Number(raw);
  if (value > INT32_MAX)
    return {
      instancePath,
      schemaPath: `#/properties/${name}/maximum`,
      keyword: 'maximum',
      params: { comparison: '<=', limit: INT32_MAX },
      message: `must be <= ${INT32_MAX}`,
    };
  if (value < INT32_MIN)
    return {
      instancePath,
      schemaPath: `#/properties/${name}/minimum`,
      keyword: 'minimum',
      params: { comparison: '>=', limit: INT32_MIN },
      message: `must be >= ${INT32_MIN}`,
    };
  return undefined;
}

let pageForms: ReturnType<typeof newBodyAjv> | undefined;
const formChecks = new WeakMap<object, ValidateFunction>();

/**
 * Checks a body that did not come through a route schema (the portal's forms, turned into the API's body shape)
 * against the API's own schema, with the API's rules and messages: the same 400 and validation items as the
 * JSON route would give. Returns the value (with schema defaults applied).
 */
export function checkBody<T>(schema: object, value: unknown, validatorName: string): T {
  let validate = formChecks.get(schema);
  if (!validate) {
    const { $id: _id, ...anonymous } = schema as { $id?: string };
    validate = (pageForms ??= newBodyAjv()).compile(anonymous);
    formChecks.set(schema, validate);
  }
  if (!validate(value)) {
    throw validationError(
      'ValidationException: One or more validation errors occurred.',
      validationItems(validate.errors ?? [], 'body', validatorName),
    );
  }
  return value as T;
}
