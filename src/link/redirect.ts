/**
 * Where the hosted Link flow sends the end user when it ends: the client's Profile `redirectUrl` with its
 * `{placeholders}` filled (facts 6.3). Nothing else is ever a redirect target.
 */

/** Placeholders the service fills itself; names are case-sensitive. */
export const RESERVED_PLACEHOLDERS = [
  'clientId',
  'companyId',
  'connectionId',
  'integrationId',
  'sourceId',
  'platform',
  'platformName',
  'sourceType',
  'statusCode',
  'errorMessage',
  'statusText',
  'data.company.companyName',
] as const;
export type ReservedPlaceholder = (typeof RESERVED_PLACEHOLDERS)[number];
const RESERVED = new Set<string>(RESERVED_PLACEHOLDERS);

export function isReservedPlaceholder(name: string): boolean {
  return RESERVED.has(name);
}

/** How a Link flow can end, by `statusCode`. */
export const LINK_OUTCOMES = {
  200: { statusText: 'OK', errorMessage: '' },
  201: { statusText: 'Created', errorMessage: '' },
  403: { statusText: 'Forbidden', errorMessage: 'User cancelled.' },
  500: { statusText: 'Internal Server Error', errorMessage: 'Unknown error occurred.' },
  501: { statusText: 'Not Implemented', errorMessage: 'Not supported.' },
} as const;
export type LinkStatusCode = keyof typeof LINK_OUTCOMES;

export function isLinkStatusCode(value: unknown): value is LinkStatusCode {
  return typeof value === 'number' && Object.hasOwn(LINK_OUTCOMES, value);
}

/** The values of the reserved placeholders for one outcome of one connection. */
export interface RedirectFacts {
  clientId: string;
  companyId: string;
  companyName: string;
  connectionId: string;
  integrationId: string;
  sourceId: string;
  platformKey: string;
  platformName: string;
  /** As the Connection has it, e.g. `Accounting`; served lower case. */
  sourceType: string;
  statusCode: LinkStatusCode;
}

export function reservedValues(facts: RedirectFacts): Record<ReservedPlaceholder, string> {
  const outcome = LINK_OUTCOMES[facts.statusCode];
  return {
    clientId: facts.clientId,
    companyId: facts.companyId,
    connectionId: facts.connectionId,
    integrationId: facts.integrationId,
    sourceId: facts.sourceId,
    platform: facts.platformKey,
    platformName: facts.platformName,
    sourceType: facts.sourceType.toLowerCase(),
    statusCode: String(facts.statusCode),
    errorMessage: outcome.errorMessage,
    statusText: outcome.statusText,
    'data.company.companyName': facts.companyName,
  };
}

const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * Replaces every `{name}` with its URL-encoded value; reserved names win over custom ones, and a name with
 * no value becomes an empty string.
 */
export function fillPlaceholders(
  template: string,
  reserved: Readonly<Record<string, string>>,
  custom: ReadonlyMap<string, string>,
): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(reserved, name) ? reserved[name] : custom.get(name);
    return encodeURIComponent(value ?? '');
  });
}

/** `scheme://authority` of a template, or undefined when it has no such prefix. */
function authorityOf(template: string): { scheme: string; authority: string } | undefined {
  const match = /^([^:/?#]*):\/\/([^/?#]*)/.exec(template);
  return match ? { scheme: match[1], authority: match[2] } : undefined;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * The address to send the end user to, or undefined when there is none to use (no redirect URL configured,
 * or the filled URL is not a usable http(s) address).
 *
 * Custom placeholders come from the Link URL's query string, which anyone can edit. So that they cannot
 * turn the redirect into an open redirect, a custom placeholder in the scheme or host of the redirect URL
 * is only accepted when the resulting origin is listed in the profile's `whiteListUrls`.
 */
export function redirectTarget(
  profile: { redirectUrl?: string; whiteListUrls?: readonly string[] },
  reserved: Readonly<Record<string, string>>,
  custom: ReadonlyMap<string, string>,
): string | undefined {
  const template = (profile.redirectUrl ?? '').trim();
  if (!template) return undefined;
  const head = authorityOf(template);
  if (!head || head.scheme.includes('{')) return undefined;
  const filled = fillPlaceholders(template, reserved, custom);
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const customInHost = [...head.authority.matchAll(PLACEHOLDER)].some(([, name]) => !isReservedPlaceholder(name));
  if (customInHost) {
    const allowed = new Set((profile.whiteListUrls ?? []).map(originOf).filter((o): o is string => o !== undefined));
    if (!allowed.has(url.origin)) return undefined;
  }
  return url.href;
}
