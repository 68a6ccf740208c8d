import type { ValidationItem } from './api-error.js';

export interface ErrorBody {
  statusCode: number;
  service: string;
  error: string;
  correlationId: string;
  validation?: { errors: ValidationItem[]; warnings: never[] };
}

/** Builds the spec's Error response body; validation messages end with the error documentation address. */
export function renderErrorBody(args: {
  statusCode: number;
  service: string;
  error: string;
  correlationId: string;
  validation?: ValidationItem[];
  docsUrl: string;
}): ErrorBody {
  const body: ErrorBody = {
    statusCode: args.statusCode,
    service: args.service,
    error: args.error,
    correlationId: args.correlationId,
  };
  if (args.validation) {
    body.validation = {
      errors: args.validation.map((item) => ({ ...item, message: withDocsReference(item.message, args.docsUrl) })),
      warnings: [],
    };
  }
  return body;
}

/**
 * The error body as JSON text and the headers every error answer carries, for `sendError` and for answers written
 * outside Fastify's reply (straight on a socket, or on Node's own response before routing).
 */
export function renderErrorResponse(
  error: { statusCode: number; service: string; message: string; validation?: ValidationItem[] },
  correlationId: string,
  docsUrl: string,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(
    renderErrorBody({
      statusCode: error.statusCode,
      service: error.service,
      error: error.message,
      correlationId,
      validation: error.validation,
      docsUrl,
    }),
  );
  return {
    body,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Correlation-Id': correlationId },
  };
}

function withDocsReference(message: string, docsUrl: string): string {
  const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
  return `${sentence} Learn more at ${docsUrl}`;
}
