import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { ApiError } from './api-error.js';
import { renderErrorResponse } from './error-body.js';
import { sendError, type DocsUrl } from './error-handler.js';
import { lingerIfBodyUnread, lingerThenClose } from './lingering-close.js';

/**
 * Refusals made before a request reaches a route: malformed HTTP, oversized headers, slow clients, router limits,
 * `CONNECT` and unknown `Expect` values. Node and Fastify answer these with bodies of their own (or none); here each
 * carries the same error body and `X-Correlation-Id` as every other answer of the API.
 */

/** How long a client may take, documented in docs/decisions.md ("Slow and malformed clients"). */
export const HTTP_TIMEOUTS = {
  /** The request line and headers must arrive within this. */
  headersMs: 10_000,
  /** The whole request, body included, must arrive within this. */
  requestMs: 30_000,
  /**
   * An idle kept-alive connection is closed after this. Longer than the 60 s idle timeout common in load balancers,
   * so the balancer, not the server, closes a reused connection (otherwise a request it sends as the server closes
   * fails). Fastify's default; an idle connection costs a socket, not a request slot.
   */
  keepAliveMs: 72_000,
  /** A connection with no traffic either way (e.g. a client that stops reading a response) is closed after this. */
  idleSocketMs: 120_000,
  /** How often Node checks the two request timeouts above (its default is 30 s, which would let them overrun). */
  checkEveryMs: 1_000,
};
export type HttpTimeouts = typeof HTTP_TIMEOUTS;

/** The Fastify options that route these refusals into the error body; `timeouts` are shortened by tests only. */
export function wireErrorOptions(
  docsUrl: DocsUrl,
  timeouts: HttpTimeouts = HTTP_TIMEOUTS,
): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout'> & {
  http: object;
} {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.idleSocketMs,
    // Node answers an HTTP/1.1 request without Host itself, with a bare 400; `requireHost` below answers it instead.
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkEveryMs, requireHostHeader: false },
    frameworkErrors: (error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
      // Decided on the request line alone, with the body unread; a router refusal runs none of the route hooks,
      // so the onSend one that lingers does not either.
      lingerIfBodyUnread(request);
      sendError(reply, request, routerRefusal(error), docsUrl);
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Duplex) =>
      answerOnSocket(socket, clientRefusal(error, timeouts), docsUrl()),
  };
}

/** `CONNECT` and unknown `Expect` headers never reach Fastify: Node would drop or answer them bare. */
export function installRawRefusals(server: Server, docsUrl: DocsUrl): void {
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    answerOnSocket(
      socket,
      new ApiError(405, 'MethodNotAllowedException: CONNECT is not supported; this is an HTTP API, not a proxy.'),
      docsUrl(),
    );
  });
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const error = new ApiError(417, `ExpectationFailedException: Only "Expect: 100-continue" is supported.`);
    const { body, headers } = renderErrorResponse(error, randomUUID(), docsUrl());
    // Node closes this `Connection: close` answer through destroySoon while the body may still be on its way:
    // linger instead, so a reset does not take the answer with it.
    const socket = response.socket;
    if (socket) socket.destroySoon = () => lingerThenClose(socket);
    response.writeHead(error.statusCode, { ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).end(body);
    request.resume();
  });
}

/** An HTTP/1.1 request must name its Host (RFC 9112 §3.2): refused here, in the error body, as Node would refuse it bare. */
export async function requireHost(request: FastifyRequest): Promise<void> {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    throw new ApiError(400, 'BadRequestException: An HTTP/1.1 request must carry a Host header.', {
      validation: [{ itemId: 'Host', message: 'The Host header is required', validatorName: 'HttpParser' }],
    });
  }
}

function routerRefusal(error: Error & { code?: string }): ApiError {
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, 'UriTooLongException: A path segment of the request is longer than this server accepts (100 characters).');
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'BadRequestException: The request path is not a valid URL (a malformed percent-encoding).', {
        validation: [{ itemId: 'path', message: 'The path must be valid percent-encoded UTF-8', validatorName: 'UrlParser' }],
      });
    default:
      return new ApiError(400, 'BadRequestException: The request could not be routed.');
  }
}

function clientRefusal(error: Error & { code?: string }, timeouts: HttpTimeouts): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // Node reports both limits with this one code.
      return new ApiError(
        408,
        `RequestTimeoutException: The request did not arrive in time (headers within ${timeouts.headersMs / 1000} s, the whole request within ${timeouts.requestMs / 1000} s).`,
      );
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        431,
        'RequestHeaderFieldsTooLargeException: The request headers are larger than this server accepts (16 KB in all).',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError(413, "PayloadTooLargeException: The request body's chunk extensions are larger than this server accepts.");
    default:
      return new ApiError(400, 'BadRequestException: The request is not well-formed HTTP/1.1 and could not be read.');
  }
}

/**
 * Writes a whole response straight to the socket and closes it: the parser has given up on this connection, so
 * nothing else can be read from it. As Node does, nothing is written once a response on it has begun, since
 * that would corrupt what the peer is reading; the connection is then only closed.
 */
function answerOnSocket(socket: Duplex, error: ApiError, docsUrl: string): void {
  // Node takes its own error listener off a socket it hands to 'connect' (and may have on a failing one): a reset
  // while this answer is written must not become an uncaught exception.
  if (socket.listenerCount('error') === 0) socket.on('error', () => socket.destroy());
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.destroyed || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { body, headers } = renderErrorResponse(error, randomUUID(), docsUrl);
  const head = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\n${head}\r\n${body}`);
  lingerThenClose(socket);
}
