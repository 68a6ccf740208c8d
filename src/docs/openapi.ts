import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A multipart/form-data body, for the document only: Fastify validates a route's `body`, and a multipart request
     * (read as a stream by the route) has none. Goes with `consumes: ['multipart/form-data']`.
     */
    multipartBody?: unknown;
    /**
     * A JSON body's shape, for the document only, where the route validates no more than "an object" and its service
     * checks the body itself (naming each problem the way writes do: one item per field, nullable fields included).
     */
    documentedBody?: unknown;
  }
}

/** Generates the OpenAPI 3.1 document from the route schemas (one source for validation, types and docs). */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ledgerport API',
        version,
        description:
          'Financial data of companies held on accounting, banking and commerce platforms, wire-compatible with Codat. ' +
          'Authenticate with `Authorization: Basic <base64(apiKey)>`. Errors: see /docs/errors.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      components: {
        securitySchemes: {
          auth_header: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The word `Basic`, a space, and the Base64 encoding of your API key.',
          },
        },
      },
      security: [{ auth_header: [] }],
    },
    refResolver: {
      // Named schemas keep their names as component keys.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => {
      const isPublic = (route.config as { public?: boolean } | undefined)?.public;
      const { multipartBody, documentedBody, ...out } = { ...(schema ?? {}) } as Record<string, unknown>;
      if (multipartBody ?? documentedBody) out.body = multipartBody ?? documentedBody;
      if (isPublic) out.security = [];
      return { schema: out as never, url };
    },
  });
}
