import { refuseNulCharacters } from './nul-guard.js';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';

/**
 * Route schema validation. Path and query parameters are text on the wire, so they are coerced to the
 * declared types; JSON bodies are not, so a wrong type in a body is a 400 rather than silently converted.
 * All errors are collected, so a bad request gets one validation item per problem.
 */
export function installValidators(app: FastifyInstance): void {
  const common = { allErrors: true, useDefaults: true, strict: false } as const;
  const forParameters = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
  const forBodies = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
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
    return parseJson(request, body as string, done);
  });
  // Responses are either stored JSON text sent as-is or small objects built to their schema:
  // response schemas document the API; they are not a second serializer.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}
