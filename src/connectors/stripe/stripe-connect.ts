import type { LinkResult, OAuth2Flow, OAuthTokens } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { vendorEndpoint, type OAuthPlatformConfig } from '../oauth/oauth-client.js';
import { platformRequest } from '../platform-http.js';
import { endpointOf, stripeConnectConfig, stripeGet, type StripeObject } from './stripe-api.js';
import { settingsOf } from './stripe-records.js';

/**
 * Stripe Connect's OAuth (Standard accounts): the merchant approves access on Stripe's consent page, and
 * the platform (this server's Stripe account, STRIPE_CLIENT_ID / STRIPE_CLIENT_SECRET) reads the merchant's account
 * with its own secret key and `Stripe-Account`. Stripe's token endpoint authenticates the platform by its secret key
 * in the form (`client_secret`), not by the client id and secret of RFC 6749, so oauthCodeFlow does not fit; and its
 * authorize page takes no PKCE.
 */

/** Read and write: the connection writes customers back (stripe-writes.ts); a read-only grant could not. */
const SCOPE = 'read_write';

/** Stripe's token answer (`POST /oauth/token`). */
interface ConnectTokenAnswer {
  access_token?: string;
  refresh_token?: string;
  stripe_user_id?: string;
  livemode?: boolean;
  scope?: string;
  error?: string;
}

function configured(): OAuthPlatformConfig {
  const config = stripeConnectConfig();
  if (!config) throw new ConnectorError('invalid', 'Stripe Connect is not configured on this server (STRIPE_CLIENT_ID)');
  return config;
}

/** One grant at Stripe's token endpoint: a refusal (`invalid_grant`, any 400/401) is `unauthorized`. */
async function grant(config: OAuthPlatformConfig, form: Record<string, string>, signal?: AbortSignal): Promise<ConnectTokenAnswer> {
  const endpoint = vendorEndpoint('Stripe', config.tokenUrl, signal);
  const body = new URLSearchParams({ ...form, client_secret: config.clientSecret });
  const response = await platformRequest(endpoint, 'POST', '', undefined, { form: body, retry: true });
  let answer: ConnectTokenAnswer = {};
  try {
    answer = JSON.parse(response.body) as ConnectTokenAnswer;
  } catch {
    answer = {};
  }
  if (response.status === 400 || response.status === 401)
    throw new ConnectorError('unauthorized', `Stripe refused the grant (${answer.error ?? `HTTP ${response.status}`})`);
  if (response.status !== 200 || typeof answer.access_token !== 'string' || typeof answer.stripe_user_id !== 'string')
    throw new ConnectorError('unavailable', `Stripe's token endpoint answered HTTP ${response.status} without a connected account`);
  return answer;
}

function credentialsOf(answer: ConnectTokenAnswer): OAuthTokens {
  return {
    accessToken: answer.access_token!,
    ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
    stripeUserId: answer.stripe_user_id!,
  };
}

export const stripeConnect: OAuth2Flow = {
  configured: () => stripeConnectConfig() !== undefined,
  authorizeUrl({ state, redirectUri }) {
    const config = configured();
    const url = new URL(config.authorizeUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', config.clientId);
    url.searchParams.set('scope', SCOPE);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    return url.toString();
  },
  async exchange({ code }): Promise<LinkResult> {
    const answer = await grant(configured(), { grant_type: 'authorization_code', code });
    const credentials = credentialsOf(answer);
    // The account's name, read as every later call reads it: with the platform's key on the merchant's behalf.
    const account = (await stripeGet<StripeObject>(endpointOf({ accountId: answer.stripe_user_id }, credentials), 'account')).body;
    return { settings: { ...settingsOf(account, answer.livemode === true) }, credentials };
  },
  // Stripe's access tokens do not expire, and reads do not use them; a refresh is only asked if Stripe refuses one.
  async refresh({ credentials, signal }) {
    const answer = await grant(
      configured(),
      { grant_type: 'refresh_token', refresh_token: String(credentials.refreshToken ?? '') },
      signal,
    );
    return credentialsOf(answer);
  },
};

/** Disconnects the merchant's account from the platform (`POST /oauth/deauthorize`), best effort. */
export async function deauthorize(stripeUserId: string): Promise<void> {
  const config = stripeConnectConfig();
  if (!config?.revokeUrl) return;
  const endpoint = {
    ...vendorEndpoint('Stripe', config.revokeUrl),
    basicAuth: { username: config.clientSecret, password: '' },
  };
  const form = new URLSearchParams({ client_id: config.clientId, stripe_user_id: stripeUserId });
  const response = await platformRequest(endpoint, 'POST', '', undefined, { form });
  if (response.status >= 300) throw new ConnectorError('unavailable', `Stripe did not deauthorize the account (HTTP ${response.status})`);
}
