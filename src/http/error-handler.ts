import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, API_SERVICE, validationError, type ApiErrorCode, type ValidationItem } from './api-error.js';
import { renderErrorResponse } from './error-body.js';
import { validationItems } from './validation-messages.js';

/** Where validation messages point; set once the server knows its public address. */
export type DocsUrl = () => string;

const PARTS: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

/** Renders every error, ours or Fastify's, as the spec's Error response body. */
export function installErrorHandler(app: FastifyInstance, docsUrl: DocsUrl): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(err, request);
    if (apiError.statusCode >= 500 && !(err instanceof ApiError)) {
      request.log.error({ err }, 'unexpected failure');
    }
    sendError(reply, request, apiError, docsUrl);
  });
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError, docsUrl: DocsUrl): FastifyReply {
  // The headers carry X-Correlation-Id too: router refusals (`frameworkErrors`) never ran the hook that sets it.
  const { body, headers } = renderErrorResponse(error, request.id, docsUrl());
  return reply
    .code(error.statusCode)
    .headers({ ...headers, ...error.headers })
    .send(body);
}

export function toApiError(err: FastifyError | ApiError, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) {
    const part = PARTS[err.validationContext ?? 'body'] ?? 'body';
    const items = validationItems(err.validation as never, part, validatorName(request));
    return validationError('ValidationException: One or more validation errors occurred.', items);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return badRequest('UnsupportedContentTypeException: Request bodies must be sent as application/json.', 'BadRequest', {
        itemId: 'Content-Type',
        message: 'Content-Type must be application/json',
        validatorName: 'ContentType',
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'PayloadTooLargeException: The request body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('MalformedRequestException: The request body is not valid JSON.', 'MalformedRequest', {
        itemId: 'body',
        message: 'The request body must be a valid JSON document',
        validatorName: 'JsonParser',
      });
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, `BadRequestException: The request could not be processed (${status}).`);
  }
  return new ApiError(
    500,
    'InternalServerError: An unexpected error occurred; please retry later and quote the correlationId if it persists.',
    {
      service: API_SERVICE,
    },
  );
}

function badRequest(error: string, code: ApiErrorCode, item: ValidationItem): ApiError {
  return new ApiError(400, error, { code, validation: [item] });
}

/** `create-company` → `CreateCompany`: the route's operation names the validator, as in Codat's bodies. */
function validatorName(request: FastifyRequest): string {
  const operationId = (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
  if (!operationId) return 'RequestValidator';
  return operationId.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
