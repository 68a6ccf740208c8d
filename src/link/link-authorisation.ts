import { findConnector } from '../connectors/registry.js';
import type { AuthorizationChoice, AuthorizationField } from '../connectors/connector.js';

/** How the Link page authorises each platform, read from its connector's declared authorization. */

/** What the Link page asks for: a choice (the Sandbox's data set size), the platform's credentials form, OAuth consent, or nothing it can do. */
export function authorisationMethod(platformKey: string): 'choice' | 'credentials' | 'oauth2' | 'files' | 'unsupported' {
  const connector = findConnector(platformKey);
  const kind = connector?.authorization?.kind ?? 'none';
  if (!connector) return 'unsupported';
  if (kind === 'files') return connector.files ? 'files' : 'unsupported';
  if (kind === 'oauth2') return connector.oauth2 ? 'oauth2' : 'unsupported';
  if (!connector.link) return 'unsupported';
  return kind === 'credentials' ? 'credentials' : 'choice';
}

/** The platform's `none` authorization (its lead text and choice), if that is its kind. */
export function authorisationChoice(platformKey: string): { description?: string; choice?: AuthorizationChoice; accept?: string } {
  const authorization = findConnector(platformKey)?.authorization;
  return authorization?.kind === 'none' || authorization?.kind === 'files' ? authorization : {};
}

/**
 * Whether a platform with a credentials form also offers its OAuth2 consent beside it (Stripe: an API key, or Stripe
 * Connect once the server is configured as a Connect platform); the start page then shows a button for it.
 */
export function offersOAuthToo(platformKey: string): boolean {
  const connector = findConnector(platformKey);
  return connector?.authorization?.kind === 'credentials' && connector.oauth2 !== undefined && connector.oauth2.configured();
}

/** The fields of a platform's credentials form (empty for other kinds). */
export function authorisationFields(platformKey: string): readonly AuthorizationField[] {
  const authorization = findConnector(platformKey)?.authorization;
  return authorization?.kind === 'credentials' ? authorization.fields : [];
}
