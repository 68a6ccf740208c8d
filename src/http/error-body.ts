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

function withDocsReference(message: string, docsUrl: string): string {
  const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
  return `${sentence} Learn more at ${docsUrl}`;
}
