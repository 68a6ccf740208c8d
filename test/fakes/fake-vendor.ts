import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What every fake vendor platform is underneath: an HTTP server on an ephemeral loopback port that reads each
 * request whole and hands it to the fake, and a list of violations (answers that broke the vendor's contract, or
 * the fake failing) that each test expects to be empty.
 */
export abstract class FakeVendor {
  readonly violations: string[] = [];
  url = '';
  private server?: http.Server;

  /** Answers one request (its body read whole). A throw is a violation and a 500. */
  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void | Promise<void>;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        Promise.resolve()
          .then(() => this.handle(req, res, body))
          .catch((err: unknown) => {
            this.violations.push(`the fake failed: ${(err as Error).stack}`);
            if (!res.headersSent) res.writeHead(500).end();
          });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/**
 * RFC 6749 §5.1 and §5.2: the contract of a vendor's OAuth token endpoint, which none of the vendors' own documents
 * covers (Xero's identity document has only `/connections`; Intuit's XSD only the accounting API). A token answer
 * (`token_type` is case-insensitive: Intuit writes `bearer`), or an error answer.
 */
export function checkTokenAnswer(status: number, body: Record<string, unknown>): string | undefined {
  if (status === 200) {
    const ok =
      typeof body.access_token === 'string' &&
      String(body.token_type).toLowerCase() === 'bearer' &&
      Number.isInteger(body.expires_in) &&
      (body.refresh_token === undefined || typeof body.refresh_token === 'string');
    return ok ? undefined : `token answer is not RFC 6749 §5.1: ${JSON.stringify(body)}`;
  }
  const errors = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'];
  return status === 400 || status === 401
    ? errors.includes(String(body.error))
      ? undefined
      : `token error is not RFC 6749 §5.2: ${JSON.stringify(body)}`
    : `token endpoint answered HTTP ${status}`;
}
