import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyRequest } from 'fastify';

/** How long what a client still sends is read and dropped after its answer, before the connection closes. */
const LINGER_MS = 5_000;

/**
 * Closes a connection the way nginx's lingering close does: the write side is shut (the answer is complete and
 * the client sees the end of it), what the client still sends is read and dropped, and only after `LINGER_MS` (or
 * when the client closes first) is the socket destroyed. Destroying a socket with the client's bytes still arriving
 * makes the kernel send a TCP reset, which can destroy an answer before the client has read it.
 */
export function lingerThenClose(socket: Duplex): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // A reset during the linger is expected; without a listener it would be an uncaught exception.
  if (socket.listenerCount('error') === 0) socket.on('error', () => socket.destroy());
  // Whatever still reads the socket (Node's HTTP parser dumping an unread body, or nobody after a parse error),
  // its bytes are dropped.
  socket.on('data', () => {});
  socket.resume();
  socket.end();
}

/**
 * Answers that come before the request body was read (a 401, 404 or 414 decided on the headers, a body over the
 * limit) on a connection that then closes: Node destroys the socket as soon as the answer is written, which can
 * lose the answer to a reset while the client is still sending. Node closes through `destroySoon`, so this one
 * socket's `destroySoon` lingers instead. On a kept-alive connection Node reads and drops the body itself and never
 * calls it.
 */
export function lingerIfBodyUnread(request: FastifyRequest): void {
  const socket = request.raw.socket as (Socket & { lingering?: boolean }) | null;
  if (!socket || request.raw.complete || socket.lingering) return;
  socket.lingering = true;
  socket.destroySoon = function lingeringClose(this: Socket) {
    lingerThenClose(this);
  };
}
