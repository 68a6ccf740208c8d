import type { LinkResult, OAuth2Flow, OAuthTokens, OrganisationChoice } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { platformRequest, type PlatformEndpoint } from '../platform-http.js';
import { realTime } from '../../lib/clock.js';

/**
 * An OAuth2 platform's configuration, from the environment: `<P>_CLIENT_ID`, `<P>_CLIENT_SECRET` and every vendor
 * address the connector calls, each a full URL defaulting to the vendor's real one (README, "Configuration"). The
 * operator sets these addresses, so they are trusted, loopback included (a test or a recording proxy stands in
 * for the vendor), unlike addresses end users type.
 */
export interface OAuthPlatformConfig {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl?: string;
  /** The API's base address including its version path, e.g. `https://api.xero.com/api.xro/2.0`. */
  apiUrl: string;
  /** The platform's other addresses and settings, by the variable's name without the prefix (e.g. `CONNECTIONS_URL`). */
  more: Readonly<Record<string, string>>;
}

export interface OAuthPlatformDefaults {
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl?: string;
  apiUrl: string;
  more?: Readonly<Record<string, string>>;
}

/** The platform's configuration, or undefined while `<P>_CLIENT_ID` is unset (the platform is then not offered). */
export function oauthConfig(
  prefix: string,
  defaults: OAuthPlatformDefaults,
  env: NodeJS.ProcessEnv = process.env,
): OAuthPlatformConfig | undefined {
  const clientId = env[`${prefix}_CLIENT_ID`]?.trim();
  if (!clientId) return undefined;
  const url = (name: string, fallback: string) => {
    const value = env[`${prefix}_${name}`]?.trim() || fallback;
    if (!/^https?:\/\//.test(value)) throw new Error(`${prefix}_${name} must be an http or https address, got "${value}"`);
    return value.replace(/\/+$/, '');
  };
  const more: Record<string, string> = {};
  for (const [name, fallback] of Object.entries(defaults.more ?? {}))
    more[name] = name.endsWith('_URL') ? url(name, fallback) : env[`${prefix}_${name}`]?.trim() || fallback;
  return {
    clientId,
    clientSecret: env[`${prefix}_CLIENT_SECRET`] ?? '',
    authorizeUrl: url('AUTHORIZE_URL', defaults.authorizeUrl),
    tokenUrl: url('TOKEN_URL', defaults.tokenUrl),
    ...(defaults.revokeUrl ? { revokeUrl: url('REVOKE_URL', defaults.revokeUrl) } : {}),
    apiUrl: url('API_URL', defaults.apiUrl),
    more,
  };
}

/** A token endpoint's answer (RFC 6749 §5.1; Square's adds `expires_at`). */
interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
  expires_at?: string;
  error?: string;
  [more: string]: unknown;
}

/** How a platform's token endpoint takes the client's credentials. */
export type ClientAuthentication =
  /** RFC 6749 §2.3.1's preferred way: HTTP Basic with the client id and secret, the grant as a form (Xero, QuickBooks). */
  | 'basic'
  /** The client id and secret in a JSON body beside the grant (Square). */
  | 'json-body';

export interface OAuthClientSpec {
  /** The platform's name, in error messages. */
  platform: string;
  /** Read on each use, so a change of the environment (a test's fake vendor) is seen. */
  config: () => OAuthPlatformConfig | undefined;
  scope: string;
  pkce: boolean;
  clientAuthentication: ClientAuthentication;
  /** Further parameters of the authorize address (e.g. Square's `session=false`). */
  authorizeParams?: Readonly<Record<string, string>>;
  /** Turns the exchanged tokens into what the connection keeps (and may call the platform, e.g. Xero's tenants). */
  link(tokens: OAuthTokens, query: Readonly<Record<string, string>>, config: OAuthPlatformConfig): Promise<LinkResult | OrganisationChoice>;
}

/** The vendor's address as an endpoint: trusted, since the operator set it (loopback included). */
export function vendorEndpoint(platform: string, baseUrl: string, signal?: AbortSignal): PlatformEndpoint {
  return { platform, baseUrl, allowPrivate: true, signal, timeoutMs: 15_000, attempts: 2, backoffMs: 300 };
}

/** An authorization code flow with a standard token endpoint, refresh included (see OAuth2Flow). */
export function oauthCodeFlow(spec: OAuthClientSpec): OAuth2Flow {
  const configured = (): OAuthPlatformConfig => {
    const config = spec.config();
    if (!config) throw new ConnectorError('invalid', `${spec.platform} is not configured on this server`);
    return config;
  };
  return {
    configured: () => spec.config() !== undefined,
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      const config = configured();
      const url = new URL(config.authorizeUrl);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('scope', spec.scope);
      url.searchParams.set('state', state);
      if (spec.pkce) {
        url.searchParams.set('code_challenge', codeChallenge);
        url.searchParams.set('code_challenge_method', 'S256');
      }
      for (const [name, value] of Object.entries(spec.authorizeParams ?? {})) url.searchParams.set(name, value);
      return url.toString();
    },
    async exchange({ code, redirectUri, codeVerifier, query }) {
      const config = configured();
      const grant: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: redirectUri };
      if (spec.pkce) grant.code_verifier = codeVerifier;
      const tokens = await tokenRequest(spec, config, grant);
      return spec.link(tokens, query, config);
    },
    async refresh({ credentials, signal }) {
      const config = configured();
      return tokenRequest(spec, config, { grant_type: 'refresh_token', refresh_token: String(credentials.refreshToken ?? '') }, signal);
    },
  };
}

/** One grant at the token endpoint: `invalid_grant` (and any 400/401) is `unauthorized`; no answer is `unavailable`. */
async function tokenRequest(
  spec: OAuthClientSpec,
  config: OAuthPlatformConfig,
  grant: Record<string, string>,
  signal?: AbortSignal,
): Promise<OAuthTokens> {
  const endpoint = {
    ...vendorEndpoint(spec.platform, config.tokenUrl, signal),
    ...(spec.clientAuthentication === 'basic' ? { basicAuth: { username: config.clientId, password: config.clientSecret } } : {}),
  };
  // A refresh is retried on no answer: the grant is the same, and a rotated token is only lost if never saved.
  const response =
    spec.clientAuthentication === 'basic'
      ? await platformRequest(endpoint, 'POST', '', undefined, { form: new URLSearchParams(grant), retry: true })
      : await platformRequest(
          endpoint,
          'POST',
          '',
          { client_id: config.clientId, client_secret: config.clientSecret, ...grant },
          { retry: true },
        );
  let answer: TokenAnswer = {};
  try {
    answer = JSON.parse(response.body) as TokenAnswer;
  } catch {
    answer = {};
  }
  if (response.status === 400 || response.status === 401) {
    throw new ConnectorError('unauthorized', `${spec.platform} refused the grant (${answer.error ?? `HTTP ${response.status}`})`);
  }
  if (response.status !== 200 || typeof answer.access_token !== 'string') {
    throw new ConnectorError('unavailable', `${spec.platform}'s token endpoint answered HTTP ${response.status} without a token`);
  }
  const expiresIn = Number(answer.expires_in);
  const expiresAt =
    typeof answer.expires_at === 'string'
      ? new Date(answer.expires_at).toISOString()
      : Number.isFinite(expiresIn)
        ? new Date(realTime.now().getTime() + expiresIn * 1000).toISOString()
        : undefined;
  return {
    accessToken: answer.access_token,
    ...(typeof answer.refresh_token === 'string' ? { refreshToken: answer.refresh_token } : {}),
    ...(expiresAt ? { expiresAt } : {}),
  };
}

/**
 * Revokes a refresh token at the vendor's revocation endpoint, best effort: RFC 7009's form (`token=…`), or, for a
 * vendor whose endpoint takes JSON instead (Intuit's `{"token": "…"}`), `body: 'json'`.
 */
export async function revokeToken(
  spec: Pick<OAuthClientSpec, 'platform' | 'config'>,
  token: string,
  options: { body?: 'form' | 'json' } = {},
): Promise<void> {
  const config = spec.config();
  if (!config?.revokeUrl) return;
  const endpoint = {
    ...vendorEndpoint(spec.platform, config.revokeUrl),
    basicAuth: { username: config.clientId, password: config.clientSecret },
  };
  const response =
    options.body === 'json'
      ? await platformRequest(endpoint, 'POST', '', { token })
      : await platformRequest(endpoint, 'POST', '', undefined, { form: new URLSearchParams({ token }) });
  if (response.status >= 300)
    throw new ConnectorError('unavailable', `${spec.platform} did not revoke the token (HTTP ${response.status})`);
}
