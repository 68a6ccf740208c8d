import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * Keeps outbound requests (webhook deliveries, live platforms) away from the server's own network (SSRF): loopback, private (RFC 1918, ULA),
 * link-local, unspecified, CGNAT, multicast and other non-unicast addresses are refused unless the operator
 * allows private addresses. The agents check every address DNS returns at connect time, so a name that
 * resolves (or re-resolves) to an internal address is refused too.
 */

/** Why a consumer URL's host is refused when it is given as a literal address or `localhost`; undefined when allowed. */
export function refusedHost(hostname: string): string | undefined {
  // `localhost.` is the same name as `localhost`; brackets wrap IPv6 literals in URLs.
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return `${hostname} is a loopback host`;
  if (!net.isIP(host)) return undefined;
  let address = ipaddr.parse(host);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  const range = address.range();
  return range === 'unicast' ? undefined : `${hostname} is a ${range} address`;
}

// One agent per mode: no keep-alive, each attempt opens (and checks) its own connection.
const guarded = { http: new RequestFilteringHttpAgent({ keepAlive: false }), https: new RequestFilteringHttpsAgent({ keepAlive: false }) };
const open = { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) };

export function outboundAgent(url: URL, allowPrivate: boolean): http.Agent {
  const agents = allowPrivate ? open : guarded;
  return url.protocol === 'https:' ? agents.https : agents.http;
}

export interface PostResult {
  /** The receiver's status code, when it answered. */
  status?: number;
  /** Why the attempt failed without an answer (timeout, refused address, connection error). */
  error?: string;
  /** The address was refused as internal (loopback, private, link-local…): the operator's setting decides. */
  refusedAddress?: boolean;
}

/**
 * POSTs `body` once and reports the status code (redirects are not followed: a 3xx is just a non-2xx answer).
 * Never rejects. The answer's body is drained and ignored; the deadline covers connecting and the status line.
 */
export function postOnce(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve({ error: 'the consumer URL is not a valid address' });
      return;
    }
    let settled = false;
    const settle = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const send = url.protocol === 'https:' ? https.request : http.request;
    const request = send(url, {
      method: 'POST',
      agent: outboundAgent(url, options.allowPrivate),
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const deadline = setTimeout(() => {
      settle({ error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs);
    request.on('response', (response) => {
      settle({ status: response.statusCode });
      // The body is not needed; a receiver hanging up half-way through it changes nothing.
      response.on('error', () => {});
      response.resume();
      // A receiver that keeps streaming its answer does not hold the connection open.
      const cap = setTimeout(() => request.destroy(), options.timeoutMs);
      response.on('close', () => clearTimeout(cap));
    });
    request.on('error', (err) =>
      // request-filtering-agent's refusal of an internal address at connect time ("… is not allowed. Because …").
      settle({
        error: err.message,
        ...(!options.allowPrivate && / is not allowed\. Because/.test(err.message) ? { refusedAddress: true } : {}),
      }),
    );
    request.end(body);
  });
}
