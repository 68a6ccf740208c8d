import { createHash } from 'node:crypto';
import type { Connector } from './connector.js';
import type { DataType } from './data-types.js';
import { accountingSandbox } from './sandbox/accounting/index.js';
import { bankingSandbox } from './sandbox/banking/index.js';
import { commerceSandbox } from './sandbox/commerce/index.js';

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

/** The platforms this server has. Adding a platform adds a connector here, not routes. */
export const CONNECTORS: readonly Connector[] = [accountingSandbox, bankingSandbox, commerceSandbox];
export const PLATFORMS: readonly PlatformInfo[] = CONNECTORS.map((c) => c.info);

export function findConnector(key: string): Connector | undefined {
  return CONNECTORS.find((c) => c.info.key === key);
}

export function findPlatform(key: string): PlatformInfo | undefined {
  return findConnector(key)?.info;
}

/** A stable GUID derived from a name, so platform ids survive restarts and match across processes. */
export function stableGuid(name: string): string {
  const hex = createHash('sha1').update(`ledgerport:${name}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
