/** One validation failure, as in the spec's Validation item. */
export interface ValidationItem {
  itemId?: string;
  message: string;
  validatorName?: string;
}

export interface ApiErrorOptions {
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
  readonly service: string;
  readonly validation?: ValidationItem[];
  readonly headers: Record<string, string>;

  constructor(statusCode: number, error: string, options: ApiErrorOptions = {}) {
    super(error);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.service = options.service ?? API_SERVICE;
    this.validation = options.validation;
    this.headers = options.headers ?? {};
  }
}

/** A 400 with one validation item per problem. */
export function validationError(error: string, items: ValidationItem[]): ApiError {
  return new ApiError(400, error, { validation: items });
}

export function notFound(error: string, service?: string): ApiError {
  return new ApiError(404, error, { service });
}
