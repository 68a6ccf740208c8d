import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** How long, and for how many bytes, a request body nobody read is still taken in after the answer. */
const LINGER = { ms: 5_000, bytes: 64 * 1024 * 1024 };

/**
 * Answers that come before the request body was read (a 401, 404 or 414 decided on the headers, a body over the
 * limit) on a connection that then closes: Node closes the socket as soon as the answer is written, and closing
 * with the client's bytes still arriving makes the kernel send a TCP reset, which can destroy the answer before
 * the client reads it. As nginx's lingering close does, the write side is shut first, and what the client still
 * sends is read and dropped for a moment (bounded by time and bytes) before the socket closes.
 */
export function lingerIfBodyUnread(request: FastifyRequest): void {
  const socket = request.raw.socket as (Socket & { lingering?: boolean }) | null;
  if (!socket || request.raw.complete || socket.lingering) return;
  socket.lingering = true;
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    let read = 0;
    const close = () => this.destroy();
    const timer = setTimeout(close, LINGER.ms);
    timer.unref();
    this.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER.bytes) close();
    });
    this.once('close', () => clearTimeout(timer));
    this.resume();
  };
}
