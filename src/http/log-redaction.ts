import type { FastifyRequest } from 'fastify';

/**
 * Query parameters whose values are secrets when they travel in an address: an OAuth platform's redirect back to
 * `/link/oauth/callback` carries a one-time authorization `code` (worth an access token until it is exchanged),
 * and the rest are what a misbehaving client or platform might put there.
 */
const SECRET_PARAMS = new Set([
  'code',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'client_secret',
  'apikey',
  'api_key',
  'password',
]);

/** The request's address as logged: every secret parameter's value replaced by `[Redacted]`. */
export function redactedUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  let changed = false;
  for (const name of [...params.keys()]) {
    if (SECRET_PARAMS.has(name.toLowerCase())) {
      params.set(name, '[Redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, query)}?${params}` : url;
}

/** Fastify's request log line (its default fields) with the address redacted. */
export function requestLogFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
