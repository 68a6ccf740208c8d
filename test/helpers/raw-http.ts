import { connect } from 'node:net';

/** One HTTP/1.1 exchange as bytes on a fresh connection, so a test can send what no HTTP client would. */
export interface RawResponse {
  /** 0 when the server closed the connection without an answer. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** True when no answer came within the timeout (the connection was then dropped). */
  timedOut: boolean;
}

/**
 * Sends `request` (already framed: request line, headers, blank line, body) on a new connection and reads the
 * answer until the server closes the connection or one whole response has arrived.
 */
export function rawRequest(url: string, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: hostname, port: Number(port) });
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks)), timedOut });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (isComplete(Buffer.concat(chunks))) finish(false);
    });
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
  });
}

/** The final response's head and what follows it; interim answers (`100 Continue`) are passed over. */
function splitHead(bytes: Buffer): { head: string; rest: Buffer } | undefined {
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = bytes.subarray(0, end).toString('latin1');
    if (!/^HTTP\/1\.[01] 1\d\d/.test(head)) return { head, rest: bytes.subarray(end + 4) };
    bytes = bytes.subarray(end + 4);
  }
}

function headersOf(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Whether one whole response (head and body by Content-Length or chunked framing) has arrived. */
function isComplete(bytes: Buffer): boolean {
  const parts = splitHead(bytes);
  if (!parts) return false;
  const headers = headersOf(parts.head);
  if (headers['content-length'] !== undefined) return parts.rest.length >= Number(headers['content-length']);
  if (/chunked/i.test(headers['transfer-encoding'] ?? ''))
    return parts.rest.includes('\r\n0\r\n\r\n') || parts.rest.subarray(0, 5).toString() === '0\r\n\r\n';
  const status = Number(parts.head.split(' ')[1]);
  return status === 204 || status === 304;
}

function parseResponse(bytes: Buffer): Omit<RawResponse, 'timedOut'> {
  const parts = splitHead(bytes);
  if (!parts) return { status: 0, headers: {}, body: '' };
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(parts.head)?.[1] ?? 0);
  const headers = headersOf(parts.head);
  let body = parts.rest;
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body: body.toString('utf8') };
}

function dechunk(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}
