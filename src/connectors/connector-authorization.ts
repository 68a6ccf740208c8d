// How a connection to a platform is authorised and linked, and what an OAuth2 connection keeps of it.

/**
 * An OAuth2 connection's access token as a connector uses it: refreshed ahead of its expiry, and at once when the
 * platform refuses it. Every process and thread shares one refresh (src/connections/oauth-tokens.ts): of several
 * asking at once, one calls the platform's token endpoint, saves the new tokens, and all use them.
 */
export interface TokenSource {
  /**
   * A current access token. `rejected`: the token the platform just answered 401 to, refreshed once before it is
   * handed out again. Throws `unauthorized` when the platform refuses the refresh (consent revoked) and
   * `unavailable` when it cannot be reached (and, for a while after, without asking it again).
   */
  accessToken(rejected?: string): Promise<string>;
}

/** What an OAuth2 connection keeps in its credentials; a platform may keep more beside them. */
export interface OAuthTokens {
  accessToken: string;
  /** Absent for tokens that do not expire or cannot be refreshed. */
  refreshToken?: string;
  /** When the access token stops working (ISO-8601). */
  expiresAt?: string;
  [more: string]: unknown;
}

/** A field of a credentials form: the Link page shows it, `PUT …/authorization` takes it in its body. */
export interface AuthorizationField {
  name: string;
  label: string;
  type: 'url' | 'text' | 'password';
  required: boolean;
  hint?: string;
}

/** One choice the end user makes when nothing needs signing in to (the Sandbox's data set size). */
export interface AuthorizationChoice {
  name: string;
  legend: string;
  default: string;
  options: readonly { value: string; label: string; hint?: string }[];
}

/**
 * How a connection to the platform is authorised; the Link page and `PUT …/authorization` both follow it.
 * `none`: nothing to ask (the Sandboxes, whose body only picks a data set). `credentials`: a form of fields,
 * checked against the platform by `link`.
 */
export type AuthorizationKind =
  /** `description`: the Link page's lead text; `{sourceType}`, `{company}` and `{brand}` are filled in. */
  | { kind: 'none'; description?: string; choice?: AuthorizationChoice }
  | { kind: 'credentials'; fields: readonly AuthorizationField[] }
  | { kind: 'oauth2' }
  /**
   * Nothing to sign in to: the connection is Linked once created, and its data is what the company uploads. The
   * Link page offers the upload; `accept` lists the file types its picker suggests; `choice` is one more form field
   * sent with the files (e.g. the CSV layout).
   */
  | { kind: 'files'; description?: string; accept?: string; choice?: AuthorizationChoice };

/**
 * An OAuth2 authorization code flow (with PKCE): the service keeps the state, sends the end user to the
 * platform's consent page, receives the platform's redirect on `GET /link/oauth/callback`, and hands the code
 * to `exchange`. The connector only says where to send the user and how to exchange the code.
 */
export interface OAuth2Flow {
  /** The platform's consent page for this attempt. */
  authorizeUrl(input: { state: string; redirectUri: string; codeChallenge: string }): string;
  /**
   * Exchanges the code for what the connection keeps (the tokens, as OAuthTokens, go in `credentials`); throws a
   * ConnectorError when refused. `query` is the rest of the platform's redirect (QuickBooks sends its `realmId`).
   * When the consent covers several of the platform's organisations, it answers an OrganisationChoice: the end
   * user picks one on a Link page.
   */
  exchange(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
    allowPrivate: boolean;
    query: Readonly<Record<string, string>>;
  }): Promise<LinkResult | OrganisationChoice>;
  /**
   * New tokens for the connection's refresh token (a platform that rotates it hands back a new one). Throws
   * `unauthorized` when the platform refuses it (`invalid_grant`: consent revoked or the token expired) and
   * `unavailable` when it does not answer.
   */
  refresh(input: { credentials: OAuthTokens; allowPrivate: boolean; signal?: AbortSignal }): Promise<OAuthTokens>;
  /** False while the platform is not configured (no client id): it is then hidden from `/integrations` and Link. */
  configured(): boolean;
}

/** A consent that covers several organisations: the end user picks the one this connection is for. */
export interface OrganisationChoice {
  /** Each organisation with the settings a connection to it keeps. */
  choices: readonly { id: string; name: string; settings: Record<string, unknown> }[];
  /** The tokens, the same whichever is chosen. */
  credentials: OAuthTokens;
}

/** What linking is given. */
export interface LinkContext {
  connectionId: string;
  /** The company the connection belongs to (the Sandboxes seed a company's data from it: one company, one story). */
  companyId: string;
  /** The settings the connection kept from an earlier link, if any. */
  current: Record<string, unknown> | null;
  now: Date;
  /** Loopback, private and link-local platform addresses allowed (`CONNECTORS_ALLOW_PRIVATE=true`). */
  allowPrivate: boolean;
}

/** What a successful link keeps: settings (plain, e.g. an address) and credentials (sealed at rest). */
export interface LinkResult {
  settings: Record<string, unknown>;
  credentials: Record<string, unknown> | null;
}
