import type { LinkResult, OAuth2Flow, OAuthTokens } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { oauthClientId, oauthConfig, tokenGrant, vendorEndpoint, type OAuthPlatformConfig } from '../oauth/oauth-client.js';
import { STRIPE } from './platform.js';
import type { OAuthDeclaration } from '../platform-declaration.js';
import { platformRequest } from '../platform-http.js';
import { endpointOf, stripeGet, type StripeObject } from './stripe-api.js';
import { settingsOf } from './stripe-records.js';

/**
 * Stripe Connect's OAuth (Standard accounts): the merchant approves access on Stripe's consent page, and
 * the platform (this server's Stripe account, STRIPE_CLIENT_ID / STRIPE_CLIENT_SECRET) reads the merchant's account
 * with its own secret key and `Stripe-Account`. Stripe's token endpoint authenticates the platform by its secret key
 * in the form (`client_secret`), not by the client id and secret of RFC 6749, so oauthCodeFlow does not fit; and its
 * authorize page takes no PKCE.
 */

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
  const config = oauthConfig(STRIPE);
  if (!config) throw new ConnectorError('invalid', 'Stripe Connect is not configured on this server (STRIPE_CLIENT_ID)');
  return config;
}

/** One grant at Stripe's token endpoint (the secret key in the form, as declared), which names the connected account. */
async function grant(config: OAuthPlatformConfig, form: Record<string, string>, signal?: AbortSignal): Promise<ConnectTokenAnswer> {
  const answer = (await tokenGrant(STRIPE, config, form, signal)) as ConnectTokenAnswer;
  if (typeof answer.stripe_user_id !== 'string')
    throw new ConnectorError('unavailable', "Stripe's token endpoint answered without a connected account");
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
  configured: () => oauthClientId(STRIPE) !== undefined,
  authorizeUrl({ state, redirectUri }) {
    const config = configured();
    const url = new URL(config.authorizeUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', config.clientId);
    url.searchParams.set('scope', STRIPE.oauth2.scope);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    for (const [name, value] of Object.entries((STRIPE.oauth2 as OAuthDeclaration).authorizeParams ?? {}))
      url.searchParams.set(name, value);
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
  const config = oauthConfig(STRIPE);
  if (!config?.revokeUrl) return;
  const endpoint = {
    ...vendorEndpoint('Stripe', config.revokeUrl),
    basicAuth: { username: config.clientSecret, password: '' },
  };
  const form = new URLSearchParams({ client_id: config.clientId, stripe_user_id: stripeUserId });
  const response = await platformRequest(endpoint, 'POST', '', undefined, { form });
  if (response.status >= 300) throw new ConnectorError('unavailable', `Stripe did not deauthorize the account (HTTP ${response.status})`);
}
