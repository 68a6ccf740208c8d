import type { PlatformInfo } from '../connectors/registry.js';
import { stableGuid } from '../connectors/registry.js';

export interface ConnectionState {
  id: string;
  companyId: string;
  platform: PlatformInfo;
  status: string;
  created: string;
  lastSync: string | null;
  /** Codat's `dataConnectionErrors`: why the platform refused the connection (a Deauthorized one). */
  errors?: DataConnectionError[];
}

export interface DataConnectionError {
  statusCode: string;
  statusText: string;
  errorMessage: string;
  erroredOnUtc: string;
  status: 'Active' | 'Resolved';
}

/** The stored Connection document: everything but `linkUrl`, which is spliced in when served. */
export function connectionDoc(state: ConnectionState): string {
  return JSON.stringify({
    id: state.id,
    integrationId: stableGuid(`integration:${state.platform.key}`),
    integrationKey: state.platform.key,
    sourceId: stableGuid(`source:${state.platform.key}`),
    sourceType: state.platform.sourceType,
    platformName: state.platform.name,
    status: state.status,
    ...(state.lastSync ? { lastSync: state.lastSync } : {}),
    created: state.created,
    dataConnectionErrors: state.errors ?? [],
  });
}

/** Where the end user authorises this connection: the hosted Link page on this server. */
export function connectionLinkUrl(publicUrl: string, companyId: string, connectionId: string): string {
  return `${publicUrl}/link/companies/${companyId}/connections/${connectionId}/start`;
}

/** A stored Connection document as served, with its `linkUrl`. */
export function serveConnection(publicUrl: string, row: { id: string; company_id: string; doc: string }): string {
  return `${row.doc.slice(0, -1)},"linkUrl":${JSON.stringify(connectionLinkUrl(publicUrl, row.company_id, row.id))}}`;
}
