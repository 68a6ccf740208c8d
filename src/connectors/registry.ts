import { createHash } from 'node:crypto';
import type { DataType } from './data-types.js';
import { ACCOUNTING_DATA_TYPES } from './data-types.js';

export type SourceType = 'Accounting' | 'Banking' | 'Commerce';

/** What the service knows about a platform before talking to it: identity and capabilities. */
export interface PlatformInfo {
  /** Four lower-case letters, e.g. `mqjo`. */
  key: string;
  name: string;
  sourceType: SourceType;
  dataTypes: readonly DataType[];
  /** Colour of the generated logo. */
  brandColour: string;
}

/** The platforms this server has. Adding a platform adds an entry (and its connector), not routes. */
export const PLATFORMS: readonly PlatformInfo[] = [
  { key: 'mqjo', name: 'Sandbox', sourceType: 'Accounting', dataTypes: ACCOUNTING_DATA_TYPES, brandColour: '#1f6feb' },
];

export function findPlatform(key: string): PlatformInfo | undefined {
  return PLATFORMS.find((p) => p.key === key);
}

/** A stable GUID derived from a name, so platform ids survive restarts and match across processes. */
export function stableGuid(name: string): string {
  const hex = createHash('sha1').update(`ledgerport:${name}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
