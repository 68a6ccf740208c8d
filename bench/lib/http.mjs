// One HTTP request with node:http. Used instead of fetch because fetch gives up on a response whose headers take
// more than 300 s, and at a million records a server busy finishing the previous scenario's requests (or a
// long synchronous step of a sync) may take that long to answer; the run should wait, not fail.
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** Resolves to {status, bytes} (the whole body as a Buffer). */
export function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      url,
      { method, agent, headers: payload ? { ...headers, 'content-length': payload.length } : headers },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Lets the process exit without waiting for idle keep-alive sockets. */
export function closeConnections() {
  agent.destroy();
}
