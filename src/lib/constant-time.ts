import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a secret someone sent equals the expected one, in time that depends on neither: both are hashed first,
 * so the comparison is of two equal-length digests whatever the lengths sent (bearer tokens, CSRF tokens).
 */
export function secretsEqual(sent: string | undefined | null, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  return timingSafeEqual(createHash('sha256').update(sent).digest(), createHash('sha256').update(expected).digest());
}
