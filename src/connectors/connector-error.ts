/**
 * The one error taxonomy every connector uses; the service decides what each means (docs/connectors.md):
 * - `unauthorized`: the platform rejected the connection's credentials or its access was revoked. The connection
 *   becomes `Deauthorized` (with a `connection.disconnected` event) and syncs stop until it is linked again.
 * - `unavailable`: the platform did not answer or answered 5xx, after the client's own retries. The pull
 *   operation fails with the message, which names the platform.
 * - `rate-limited`: the platform asked to wait (`retryAfterMs`); the client waits and retries within the read.
 * - `invalid`: the platform refused what was sent (a write, a link attempt); the message says why.
 * - `refused-address`: the platform's address is loopback, private or link-local and the operator has not set
 *   `CONNECTORS_ALLOW_PRIVATE=true`.
 */
export type ConnectorErrorKind = 'unauthorized' | 'unavailable' | 'rate-limited' | 'invalid' | 'refused-address';

export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    /** The authorization field the error is about (a link attempt), e.g. `url`. */
    readonly field?: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

export function isConnectorError(err: unknown): err is ConnectorError {
  return err instanceof ConnectorError;
}

/**
 * A write the platform refuses for these problems, each naming the field of the write it is about and the platform
 * as its validator: the push operation fails with them (a platform that says no more than a message throws a
 * ConnectorError `invalid` instead).
 */
export class WriteRefused extends Error {
  constructor(readonly problems: readonly { itemId: string; message: string; validatorName: string }[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'WriteRefused';
  }
}

/** An upload a platform's file intake refuses: one item per problem, each naming the file (and where in it). */
export class FileRefused extends Error {
  constructor(readonly items: readonly { itemId: string; message: string }[]) {
    super(items.map((i) => i.message).join('; '));
    this.name = 'FileRefused';
  }
}
