import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_LENGTH = 40;

/** A new API key: 40 alphanumeric characters (~238 bits), like Codat's. */
export function generateApiKey(): string {
  let key = '';
  while (key.length < API_KEY_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && key.length < API_KEY_LENGTH) key += ALPHABET[byte % 62];
    }
  }
  return key;
}

/**
 * SHA-256 of the key. A plain fast hash suffices: keys are long random strings, so there is no
 * dictionary to try, and lookups stay cheap on every request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Reads the key from `Basic <base64(key)>`. A trailing `:` (what `curl -u KEY:` sends) is tolerated.
 * Returns undefined for anything else.
 */
export function parseBasicAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return undefined;
  let decoded = Buffer.from(m[1], 'base64').toString('utf8');
  if (decoded.endsWith(':')) decoded = decoded.slice(0, -1);
  return decoded.length > 0 && decoded.length <= 200 ? decoded : undefined;
}
