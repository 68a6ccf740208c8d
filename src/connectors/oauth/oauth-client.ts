import type { LinkResult, OAuth2Flow, OAuthTokens, OrganisationChoice } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { platformRequest, type PlatformEndpoint } from '../platform-http.js';
import type { PlatformDeclaration } from '../platform-declaration.js';
import { declaredBaseUrl, envUrl } from '../platform-runtime.js';
import { clockFor, realTime } from '../../lib/clock.js';

/**
 * An OAuth2 platform's configuration: its declaration (`oauth2`, and the API's address from `transport`) with the
 * environment's overrides: `<P>_CLIENT_ID`, `<P>_CLIENT_SECRET` and every vendor address the connector calls, each a
 * full URL (README, "Configuration"). The operator sets these addresses, so they are trusted, loopback included (a
 * test or a recording proxy stands in for the vendor), unlike addresses end users type.
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

/** The platform's configuration, or undefined while `<P>_CLIENT_ID` is unset (the platform is then not offered). */
/**
 * The OAuth client id the operator set for the platform (`<env>_CLIENT_ID`), if any: whether the platform is offered.
 * Cheap, for every listing; the rest of the configuration is read where it is used, and checked at start.
 */
export function oauthClientId(declaration: PlatformDeclaration, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const prefix = declaration.oauth2?.env;
  return (prefix && env[`${prefix}_CLIENT_ID`]?.trim()) || undefined;
}

export function oauthConfig(declaration: PlatformDeclaration, env: NodeJS.ProcessEnv = process.env): OAuthPlatformConfig | undefined {
  const oauth = declaration.oauth2;
  if (!oauth) throw new Error(`platform ${declaration.key} declares no oauth2 flow`);
  const prefix = oauth.env;
  const clientId = oauthClientId(declaration, env);
  if (!clientId) return undefined;
  const more: Record<string, string> = {};
  for (const [name, fallback] of Object.entries(oauth.more ?? {}))
    more[name] = name.endsWith('_URL') ? envUrl(env, `${prefix}_${name}`, fallback) : env[`${prefix}_${name}`]?.trim() || fallback;
  return {
    clientId,
    clientSecret: env[`${prefix}_CLIENT_SECRET`] ?? '',
    authorizeUrl: envUrl(env, `${prefix}_AUTHORIZE_URL`, oauth.authorizeUrl),
    tokenUrl: envUrl(env, `${prefix}_TOKEN_URL`, oauth.tokenUrl),
    ...(oauth.revokeUrl ? { revokeUrl: envUrl(env, `${prefix}_REVOKE_URL`, oauth.revokeUrl) } : {}),
    apiUrl: declaredBaseUrl(declaration, env),
    more,
  };
}

/** A token endpoint's answer (RFC 6749 §5.1; Square's adds `expires_at`). */
export interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
  expires_at?: string;
  error?: string;
  [more: string]: unknown;
}

export interface OAuthClientSpec {
  /** The platform: its name (in error messages) and its `oauth2` declaration (scope, PKCE, client authentication). */
  declaration: PlatformDeclaration;
  /** Turns the exchanged tokens into what the connection keeps (and may call the platform, e.g. Xero's tenants). */
  link(tokens: OAuthTokens, query: Readonly<Record<string, string>>, config: OAuthPlatformConfig): Promise<LinkResult | OrganisationChoice>;
}

/** The vendor's address as an endpoint: trusted, since the operator set it (loopback included). */
export function vendorEndpoint(platform: string, baseUrl: string, signal?: AbortSignal): PlatformEndpoint {
  return { platform, baseUrl, allowPrivate: true, signal, timeoutMs: 15_000, attempts: 2, backoffMs: 300 };
}

/** An authorization code flow with a standard token endpoint, refresh included (see OAuth2Flow). */
export function oauthCodeFlow(spec: OAuthClientSpec): OAuth2Flow {
  const { declaration } = spec;
  // A platform with a flow of its own (an OAuth2Flow in code) declares no `oauth2`; this flow is the declared one.
  if (!declaration.oauth2) throw new Error(`platform ${declaration.key} declares no oauth2 flow`);
  const configured = (): OAuthPlatformConfig => {
    const config = oauthConfig(declaration);
    if (!config) throw new ConnectorError('invalid', `${declaration.name} is not configured on this server`);
    return config;
  };
  // Read on each use, so a change of the declaration or the environment (a test's fake vendor) is seen.
  const flow = () => declaration.oauth2!;
  return {
    configured: () => oauthClientId(declaration) !== undefined,
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      const config = configured();
      const oauth = flow();
      const url = new URL(config.authorizeUrl);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('scope', oauth.scope);
      url.searchParams.set('state', state);
      if (oauth.pkce) {
        url.searchParams.set('code_challenge', codeChallenge);
        url.searchParams.set('code_challenge_method', 'S256');
      }
      for (const [name, value] of Object.entries(oauth.authorizeParams ?? {})) url.searchParams.set(name, value);
      return url.toString();
    },
    async exchange({ code, redirectUri, codeVerifier, query }) {
      const config = configured();
      const grant: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: redirectUri };
      if (flow().pkce) grant.code_verifier = codeVerifier;
      const tokens = await tokenRequest(declaration, config, grant);
      return spec.link(tokens, query, config);
    },
    async refresh({ credentials, signal }) {
      const config = configured();
      return tokenRequest(
        declaration,
        config,
        { grant_type: 'refresh_token', refresh_token: String(credentials.refreshToken ?? '') },
        signal,
      );
    },
  };
}

/** The furthest a JavaScript date reaches (ECMA-262: 8.64e15 ms either side of 1970). */
const MAX_DATE_MS = 8.64e15;

/** One grant at the token endpoint: `invalid_grant` (and any 400/401) is `unauthorized`; no answer is `unavailable`. */
async function tokenRequest(
  declaration: PlatformDeclaration,
  config: OAuthPlatformConfig,
  grant: Record<string, string>,
  signal?: AbortSignal,
): Promise<OAuthTokens> {
  const answer = await tokenGrant(declaration, config, grant, signal);
  // An expiry the platform wrote unreadably (not a date, or beyond what a date holds) is none: the token is used until
  // the platform refuses it, then refreshed. The lifetime is counted on the business clock of the work that asked (a
  // company on an emulator test clock ages its tokens with the clock); a platform whose own clock disagrees refuses
  // the token, and a refused token is refreshed, so either way the connection carries on.
  const expiresIn = Number(answer.expires_in);
  const business = clockFor({}).now().getTime();
  const at =
    typeof answer.expires_at === 'string'
      ? business + (Date.parse(answer.expires_at) - realTime.now().getTime())
      : business + expiresIn * 1000;
  const expiresAt = Number.isFinite(at) && Math.abs(at) <= MAX_DATE_MS ? new Date(at).toISOString() : undefined;
  return {
    accessToken: answer.access_token!,
    ...(typeof answer.refresh_token === 'string' ? { refreshToken: answer.refresh_token } : {}),
    ...(expiresAt ? { expiresAt } : {}),
  };
}

/**
 * One grant at the platform's token endpoint, the client authenticated as its declaration says; the answer as the
 * platform gave it (with its own fields: Stripe's connected account). A refusal (`invalid_grant`, any 400 or 401)
 * is `unauthorized`; no token in the answer is `unavailable`.
 */
export async function tokenGrant(
  declaration: PlatformDeclaration,
  config: OAuthPlatformConfig,
  grant: Record<string, string>,
  signal?: AbortSignal,
): Promise<TokenAnswer> {
  const how = declaration.oauth2!.clientAuthentication;
  const platform = declaration.name;
  const endpoint = {
    ...vendorEndpoint(platform, config.tokenUrl, signal),
    ...(how === 'basic' ? { basicAuth: { username: config.clientId, password: config.clientSecret } } : {}),
  };
  // A refresh is retried on no answer: the grant is the same, and a rotated token is only lost if never saved.
  const response =
    how === 'json-body'
      ? await platformRequest(
          endpoint,
          'POST',
          '',
          { client_id: config.clientId, client_secret: config.clientSecret, ...grant },
          { retry: true },
        )
      : await platformRequest(endpoint, 'POST', '', undefined, {
          form: new URLSearchParams(how === 'form-secret' ? { ...grant, client_secret: config.clientSecret } : grant),
          retry: true,
        });
  // Anything but a JSON object (`null`, a number, an HTML page) is an answer without a token.
  let answer: TokenAnswer = {};
  try {
    const parsed: unknown = JSON.parse(response.body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) answer = parsed as TokenAnswer;
  } catch {
    answer = {};
  }
  if (response.status === 400 || response.status === 401) {
    throw new ConnectorError('unauthorized', `${platform} refused the grant (${answer.error ?? `HTTP ${response.status}`})`);
  }
  if (response.status !== 200 || typeof answer.access_token !== 'string') {
    throw new ConnectorError('unavailable', `${platform}'s token endpoint answered HTTP ${response.status} without a token`);
  }
  return answer;
}

/**
 * Revokes a refresh token at the vendor's revocation endpoint, best effort: RFC 7009's form (`token=…`), or, for a
 * vendor whose endpoint takes JSON instead (Intuit's `{"token": "…"}`), `body: 'json'`.
 */
export async function revokeToken(
  declaration: PlatformDeclaration,
  token: string,
  options: { body?: 'form' | 'json' } = {},
): Promise<void> {
  const config = oauthConfig(declaration);
  if (!config?.revokeUrl) return;
  const endpoint = {
    ...vendorEndpoint(declaration.name, config.revokeUrl),
    basicAuth: { username: config.clientId, password: config.clientSecret },
  };
  const response =
    options.body === 'json'
      ? await platformRequest(endpoint, 'POST', '', { token })
      : await platformRequest(endpoint, 'POST', '', undefined, { form: new URLSearchParams({ token }) });
  if (response.status >= 300)
    throw new ConnectorError('unavailable', `${declaration.name} did not revoke the token (HTTP ${response.status})`);
}
