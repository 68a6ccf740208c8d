import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A consumer's signing secret: `whsec_` + Base64 of 24 random bytes (the Standard Webhooks / Svix form). */
export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The Standard Webhooks headers of one attempt: the signature covers `${id}.${timestamp}.${body}`, so the
 * receiver must verify against the raw body bytes.
 */
export function signatureHeaders(secret: string, messageId: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}
