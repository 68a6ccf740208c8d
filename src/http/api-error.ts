/** One validation failure, as in the spec's Validation item. */
export interface ValidationItem {
  itemId?: string;
  message: string;
  validatorName?: string;
}

/**
 * What went wrong, for code to branch on: stable, where the message is for people (and says more). The first
 * ones follow the status code (the default for an error without a code of its own); the others are the
 * conditions the service names, as the `…Exception` word its messages begin with.
 */
export type ApiErrorCode =
  | 'BadRequest'
  | 'Unauthorized'
  | 'PaymentRequired'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'RequestTimeout'
  | 'Conflict'
  | 'PayloadTooLarge'
  | 'UriTooLong'
  | 'ExpectationFailed'
  | 'TooManyRequests'
  | 'HeaderFieldsTooLarge'
  | 'Internal'
  | 'ServiceUnavailable'
  | 'Validation'
  | 'MalformedRequest'
  | 'DatasetAlreadyInProgress'
  | 'ConnectionNotLinked'
  | 'NoLinkedConnection'
  | 'ConnectionGone'
  | 'IntegrationUnavailable'
  | 'ApiKeyLimit'
  | 'ConnectionLimit'
  | 'WebhookConsumerLimit'
  | 'CompanyLimit'
  | 'SyncScheduleNotAllowed'
  | 'RecordNotFound'
  | 'DataTypeNotSupported';

const CODE_OF_STATUS: Record<number, ApiErrorCode> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  402: 'PaymentRequired',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  414: 'UriTooLong',
  417: 'ExpectationFailed',
  429: 'TooManyRequests',
  431: 'HeaderFieldsTooLarge',
  500: 'Internal',
  503: 'ServiceUnavailable',
};

export interface ApiErrorOptions {
  /** What went wrong (see ApiErrorCode); defaults to the status code's. */
  code?: ApiErrorCode;
  /** Component or platform that produced the error; defaults to the API layer. */
  service?: string;
  /** Validation items; their messages get the error documentation address appended when rendered. */
  validation?: ValidationItem[];
  /** Extra response headers (Retry-After, Allow, ...). */
  headers?: Record<string, string>;
}

export const API_SERVICE = 'PublicApi';

/**
 * The one error type services throw. The HTTP layer renders it as the spec's Error response body.
 * `error` must never carry secrets or internal detail: it goes to the caller verbatim.
 */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: ApiErrorCode;
  readonly service: string;
  readonly validation?: ValidationItem[];
  readonly headers: Record<string, string>;

  constructor(statusCode: number, error: string, options: ApiErrorOptions = {}) {
    super(error);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.code = options.code ?? CODE_OF_STATUS[statusCode] ?? (statusCode >= 500 ? 'Internal' : 'BadRequest');
    this.service = options.service ?? API_SERVICE;
    this.validation = options.validation;
    this.headers = options.headers ?? {};
  }
}

/** A 400 with one validation item per problem. */
export function validationError(error: string, items: ValidationItem[]): ApiError {
  return new ApiError(400, error, { code: 'Validation', validation: items });
}

/** A data type none of the company's platforms provides (Codat's wording). */
export function unsupported(dataType: string, platformNames: string[]): ApiError {
  return new ApiError(404, `Datatype ${dataType} not supported by platform(s) ${platformNames.join(', ')}`, {
    code: 'DataTypeNotSupported',
  });
}

export function notFound(error: string, service?: string): ApiError {
  return new ApiError(404, error, { service });
}
