import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretKey, SecretKeys } from './secret-keys.js';

/**
 * Authenticated encryption of small JSON values (AES-256-GCM, a fresh 96-bit IV each time). The sealed form is
 * `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts). `context` (e.g. the connection id) is bound as
 * additional data: a sealed value copied onto another row does not open there.
 */
export function seal(value: unknown, key: SecretKey, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return ['v1', key.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** Thrown when no configured key opens a sealed value (wrong or lost key, or tampering). */
export class SealedBoxError extends Error {}

/** Opens a sealed value with whichever configured key sealed it; returns the key used too. */
export function unseal(sealed: string, keys: SecretKeys, context: string): { value: unknown; key: SecretKey } {
  const [version, keyId, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || body === undefined) throw new SealedBoxError('not a sealed value');
  const key = [keys.current, ...keys.previous].find((k) => k.id === keyId);
  if (!key)
    throw new SealedBoxError(`sealed with key ${keyId}, which is neither LEDGERPORT_SECRET_KEY nor one of LEDGERPORT_PREVIOUS_SECRET_KEYS`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    return { value: JSON.parse(text), key };
  } catch {
    throw new SealedBoxError(`the value sealed with key ${keyId} does not open (altered, or sealed for another record)`);
  }
}
