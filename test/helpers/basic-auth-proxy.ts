import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy with HTTP Basic authentication in front of a platform (what an operator puts in front of
 * hledger-web): 401 without the current credentials, otherwise the request is passed on. `beforeForward` runs
 * before each request is passed on (a test stops the platform there, mid-sync); a request that cannot be passed
 * on has its connection dropped, as a dead upstream looks through a plain TCP proxy. Each request has a connection of
 * its own upstream (no pooled keep-alive sockets that would outlive the platform or hold it open).
 */
export async function startBasicAuthProxy(target: string, credentials: { username: string; password: string }) {
  const state = { ...credentials, beforeForward: undefined as ((path: string) => Promise<void> | void) | undefined, seen: [] as string[] };
  const server = http.createServer(async (request, response) => {
    const expected = `Basic ${Buffer.from(`${state.username}:${state.password}`).toString('base64')}`;
    state.seen.push(`${request.method} ${request.url}`);
    if (request.headers.authorization !== expected) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="hledger"' }).end('unauthorized');
      return;
    }
    await state.beforeForward?.(request.url ?? '/');
    const upstream = http.request(
      new URL(request.url ?? '/', target),
      { method: request.method, headers: { ...request.headers, host: new URL(target).host }, agent: false },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
