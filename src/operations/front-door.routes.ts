import type { FastifyInstance } from 'fastify';

/**
 * Ledgerport's mark: a ledger's ruled page with a port's arrow, in the portal's colours. SVG, so one small file
 * serves every size; browsers take it at /favicon.ico too (they go by the content type, not the name).
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#0550ae"/>
<path d="M8 9h12M8 14h12M8 19h7" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/>
<path d="M19 20l5 4-5 4" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`;

/** The server's front door: `/` leads a person to the portal; the favicon every browser asks for. */
export function registerFrontDoor(app: FastifyInstance): void {
  const route = { config: { public: true }, schema: { hide: true } } as const;
  app.get('/', route, async (_request, reply) => reply.code(302).redirect('/portal'));
  for (const path of ['/favicon.ico', '/favicon.svg']) {
    app.get(path, route, async (_request, reply) =>
      reply.header('Content-Type', 'image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(FAVICON_SVG),
    );
  }
}
