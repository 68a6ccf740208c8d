import type { Client } from '../clients/clients.store.js';
import { defaultProfile } from '../clients/profile.js';
import type { Brand } from './layout.js';

/** The parts of the client's Profile the Link pages use. */
export interface LinkProfile {
  name: string;
  logoUrl?: string;
  iconUrl?: string;
  /** Empty: show the built-in finish page. */
  redirectUrl: string;
  whiteListUrls: string[];
}

/** A company as its Link page sees it. The company id in the address is what grants access. */
export interface LinkCompany {
  client: Client;
  companyId: string;
  companyName: string;
  profile: LinkProfile;
}

export interface LinkConnection {
  id: string;
  companyId: string;
  platformKey: string;
  sourceType: string;
  status: string;
  /** From the stored Connection document. */
  integrationId: string;
  sourceId: string;
  platformName: string;
}

export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The stored profile JSON, tolerating anything odd in it: Link pages must render whatever was saved. */
export function parseProfile(json: string | undefined, clientName: string): LinkProfile {
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = json ? JSON.parse(json) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
  } catch {
    raw = {};
  }
  const fallback = defaultProfile(clientName);
  return {
    name: stringField(raw.name) || fallback.name,
    logoUrl: stringField(raw.logoUrl) || undefined,
    iconUrl: stringField(raw.iconUrl) || undefined,
    redirectUrl: stringField(raw.redirectUrl) ?? '',
    whiteListUrls: Array.isArray(raw.whiteListUrls) ? raw.whiteListUrls.filter((u): u is string => typeof u === 'string') : [],
  };
}

export function brandOf(profile: LinkProfile): Brand {
  return { name: profile.name, logoUrl: profile.logoUrl ?? profile.iconUrl };
}
