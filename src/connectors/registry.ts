import { sha1 } from '../lib/sha1.js';
import type { Connector, PlatformInfo } from './connector.js';
import { oauthClientId, oauthConfig } from './oauth/oauth-client.js';
import { declaredBaseUrl } from './platform-runtime.js';
import { accountingSandbox } from './sandbox/accounting/index.js';
import { bankingSandbox } from './sandbox/banking/index.js';
import { commerceSandbox } from './sandbox/commerce/index.js';
import { hledger } from './hledger/index.js';
import { bankStatements } from './bank-statements/index.js';
import { xero } from './xero/index.js';
import { quickbooks } from './quickbooks/index.js';
import { stripe } from './stripe/index.js';
import { square } from './square/index.js';

export type { PlatformInfo, SourceType } from './connector.js';

const connectors: Connector[] = [
  accountingSandbox,
  bankingSandbox,
  commerceSandbox,
  hledger,
  bankStatements,
  xero,
  quickbooks,
  stripe,
  square,
];
const platforms: PlatformInfo[] = connectors.map((c) => c.info);

/** The platforms this server has. Adding a platform adds a connector here, not routes. */
export const CONNECTORS: readonly Connector[] = connectors;
export const PLATFORMS: readonly PlatformInfo[] = platforms;

/**
 * Adds a platform at run time, before the app is built (routes and `/integrations` are made from the registry
 * at start): for tests and embedders with a platform of their own. Its syncs run where it was registered, so an
 * app using it writes versions on its own thread (`jobs.writerThreads: 0`).
 */
export function registerConnector(connector: Connector): void {
  if (!/^[a-z]{4}$/.test(connector.info.key))
    throw new Error(`a platform key is four lower-case letters, not ${JSON.stringify(connector.info.key)}`);
  if (findConnector(connector.info.key)) throw new Error(`platform ${connector.info.key} is already registered`);
  connectors.push(connector);
  platforms.push(connector.info);
}

/**
 * Whether the server offers the platform: an OAuth2-only platform is offered once it is configured (its client id
 * set), and is otherwise missing from `/integrations`, the Link page and new connections.
 */
export function isOffered(connector: Connector): boolean {
  return connector.authorization?.kind === 'oauth2' && connector.oauth2 ? connector.oauth2.configured() : true;
}

/**
 * Checks what the operator set for each platform (its API's address, and for a platform whose OAuth client id is set,
 * its OAuth addresses), so that a mistake stops the start, naming the variable, instead of failing every request that
 * would read it.
 */
export function checkPlatformSettings(env: NodeJS.ProcessEnv = process.env): void {
  for (const { declaration } of connectors) {
    if (declaration.transport && 'fixed' in declaration.transport.baseUrl) declaredBaseUrl(declaration, env);
    if (oauthClientId(declaration, env)) oauthConfig(declaration, env);
  }
}

/** The platforms the server offers now (see isOffered). */
export function offeredConnectors(): Connector[] {
  return connectors.filter(isOffered);
}

export function findConnector(key: string): Connector | undefined {
  return CONNECTORS.find((c) => c.info.key === key);
}

export function findPlatform(key: string): PlatformInfo | undefined {
  return findConnector(key)?.info;
}

/** A stable GUID derived from a name, so platform ids survive restarts and match across processes. */
export function stableGuid(name: string): string {
  const hex = sha1(`ledgerport:${name}`, 'hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
