import { companyForLink } from '../companies/companies.store.js';
import { connectionOfCompany, connectionsOfCompany } from '../connections/connections.store.js';
import type { ClientsStore } from '../clients/clients.store.js';
import { createFilesService } from '../uploads/files.service.js';
import type { IntakeRunner } from '../uploads/intake.js';
import { uploadHighWater } from '../platform-data/uploads.store.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { createConnectionsService, type ConnectionsDeps, type ConnectionsService } from '../connections/connections.service.js';
import { connectionLinkUrl } from '../connections/connection-doc.js';
import { findConnector, findPlatform, isOffered, offeredConnectors, type PlatformInfo } from '../connectors/registry.js';
import type { LinkResult } from '../connectors/connector.js';
import { ApiError } from '../http/api-error.js';
import type { PlatformChoice, PlatformGroup } from './pages.js';
import type { LinkStatusCode, RedirectFacts } from './redirect.js';
import { oauthLink } from './oauth-link.js';
import { parseProfile, stringField, type LinkCompany, type LinkConnection } from './link-company.js';

export interface LinkDeps extends ConnectionsDeps {
  companies: CompaniesService;
  clients: ClientsStore;
  /** Where uploaded statement files are read (see src/uploads/intake.ts). */
  intake?: IntakeRunner;
  /** The connections service the API uses; one is built from the other deps when absent. */
  connections?: ConnectionsService;
}

/** The source types the Link page offers, in order. */
export const SOURCE_TYPE_ORDER = ['Accounting', 'Banking', 'Commerce'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const STATUS_LABELS: Record<string, string> = {
  Linked: 'Connected',
  PendingAuth: 'Not finished',
  Deauthorized: 'Access expired',
  Unlinked: 'Disconnected',
};
/** A files platform's linked connection into which nothing was imported yet. */
const NO_FILES_YET = 'No files yet';
/** When a platform has several connections, the one shown is the first status in this order. */
const STATUS_PRECEDENCE = ['Linked', 'PendingAuth', 'Deauthorized', 'Unlinked'];

/** What the Link pages need: companies, their connections and the client's profile, without an API key. */
export function createLinkService(deps: LinkDeps) {
  const { db } = deps;
  const connections = deps.connections ?? createConnectionsService(deps);
  // The upload on the Link page of a platform whose data is files: read, shown, then imported.
  const files = createFilesService({
    db,
    jobs: deps.jobs,
    wakeJobs: deps.wakeJobs,
    companies: deps.companies,
    connections,
    intake: deps.intake,
  });
  const logoUrl = (key: string) => `${deps.publicUrl()}/integrations/${encodeURIComponent(key)}/logo.svg`;

  async function connectionsOf(company: LinkCompany): Promise<LinkConnection[]> {
    const rows = await connectionsOfCompany(db, company.client.id, company.companyId);
    return rows.map(toLinkConnection);
  }

  function toLinkConnection(row: {
    id: string;
    company_id: string;
    platform_key: string;
    source_type: string;
    status: string;
    doc: string;
  }): LinkConnection {
    let doc: Record<string, unknown> = {};
    try {
      doc = JSON.parse(row.doc) as Record<string, unknown>;
    } catch {
      doc = {};
    }
    return {
      id: row.id,
      companyId: row.company_id,
      platformKey: row.platform_key,
      sourceType: row.source_type,
      status: row.status,
      integrationId: stringField(doc.integrationId) ?? '',
      sourceId: stringField(doc.sourceId) ?? '',
      platformName: stringField(doc.platformName) ?? findPlatform(row.platform_key)?.name ?? row.platform_key,
    };
  }

  async function linkWith(company: LinkCompany, connectionId: string, result: LinkResult): Promise<LinkStatusCode> {
    return (await connections.linkWithResult(company.client, company.companyId, connectionId, result)) ? 200 : 201;
  }

  const oauth = oauthLink({ deps, connections, company: (companyId) => service.company(companyId), linkWith });
  const service = {
    files,
    logoUrl,

    /** The company behind a Link address, or undefined for anything that does not name one. */
    async company(companyId: string): Promise<LinkCompany | undefined> {
      if (!UUID.test(companyId)) return undefined;
      const row = await companyForLink(db, companyId);
      if (!row) return undefined;
      const client = await deps.clients.get(row.client_id);
      if (!client) return undefined;
      return {
        client,
        companyId: row.id,
        companyName: row.name,
        profile: parseProfile(await deps.clients.getProfile(client.id), client.name),
      };
    },

    async connection(company: LinkCompany, connectionId: string): Promise<LinkConnection | undefined> {
      if (!UUID.test(connectionId)) return undefined;
      const row = await connectionOfCompany(db, company.client.id, company.companyId, connectionId);
      return row && toLinkConnection(row);
    },

    /** The platforms by source type, each with the company's connections to it. */
    async platformGroups(company: LinkCompany): Promise<PlatformGroup[]> {
      const existing = await connectionsOf(company);
      const accounting = existing.find((c) => c.sourceType === 'Accounting');
      // A files platform's connection is Linked as soon as it is made (there is nothing to sign in to), so it says
      // "Connected" only once a file was imported into it: until then the end user has shared nothing.
      const linkedToFiles = (c: LinkConnection) => c.status === 'Linked' && findConnector(c.platformKey)?.authorization?.kind === 'files';
      const withFiles = new Set<string>();
      for (const c of existing.filter(linkedToFiles)) if ((await uploadHighWater(db, company.client.id, c.id)) > 0) withFiles.add(c.id);
      const label = (c: LinkConnection): string => (linkedToFiles(c) && !withFiles.has(c.id) ? NO_FILES_YET : STATUS_LABELS[c.status]);
      return SOURCE_TYPE_ORDER.map((sourceType) => ({
        sourceType,
        platforms: offeredConnectors()
          .map((c) => c.info)
          .filter((p) => p.sourceType === sourceType)
          .map((p): PlatformChoice => {
            const mine = existing.filter((c) => c.platformKey === p.key);
            // A files platform's connections that hold files come first: one with files is what "Connected" means.
            const ranked = [...mine].sort((a, b) => Number(withFiles.has(b.id)) - Number(withFiles.has(a.id)));
            const shown = STATUS_PRECEDENCE.find((s) => ranked.some((c) => c.status === s));
            const status = shown ? label(ranked.find((c) => c.status === shown)!) : undefined;
            const base = { key: p.key, name: p.name, logoUrl: logoUrl(p.key), status };
            if (sourceType === 'Accounting') {
              // One accounting connection per company: a linked one is final, another platform's blocks this one.
              if (accounting && accounting.platformKey !== p.key) return { ...base, state: 'unavailable', status: 'Not available' };
              if (shown === 'Linked') return { ...base, state: 'connected' };
            }
            return { ...base, state: 'choose' };
          }),
      }));
    },

    /**
     * The connection the Link page continues with for a platform: the company's unfinished one if any,
     * otherwise a new one (the company's existing accounting connection for its own platform).
     * Throws a 4xx ApiError the page shows when the choice is impossible.
     */
    async chooseConnection(company: LinkCompany, platformKey: string): Promise<{ connectionId: string; linkUrl: string }> {
      const connector = findConnector(platformKey);
      const platform: PlatformInfo | undefined = connector && isOffered(connector) ? connector.info : undefined;
      if (!platform || !(SOURCE_TYPE_ORDER as readonly string[]).includes(platform.sourceType)) {
        throw new ApiError(400, 'Choose one of the platforms listed.');
      }
      const existing = await connectionsOf(company);
      const samePlatform = existing.filter((c) => c.platformKey === platform.key);
      const accounting = existing.find((c) => c.sourceType === 'Accounting');
      // Files add up on one connection (dedupe works across its uploads): a files platform's linked one is reused.
      const files = findConnector(platform.key)?.authorization?.kind === 'files';
      const reuse =
        samePlatform.find((c) => c.status === 'PendingAuth') ??
        (platform.sourceType === 'Accounting'
          ? accounting
          : files
            ? samePlatform.find((c) => c.status === 'Linked')
            : samePlatform.find((c) => c.status !== 'Linked'));
      if (reuse) {
        if (reuse.platformKey !== platform.key) {
          throw new ApiError(
            409,
            `${company.companyName} already has an accounting connection (${reuse.platformName}); only one accounting platform can be connected.`,
            { code: 'ConnectionLimit' },
          );
        }
        return { connectionId: reuse.id, linkUrl: connectionLinkUrl(deps.publicUrl(), company.companyId, reuse.id) };
      }
      try {
        const served = JSON.parse(await connections.create(company.client, company.companyId, platform.key)) as {
          id: string;
          linkUrl: string;
        };
        return { connectionId: served.id, linkUrl: served.linkUrl };
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 409) {
          throw new ApiError(
            409,
            `${company.companyName} already has an accounting connection; only one accounting platform can be connected.`,
            { code: 'ConnectionLimit' },
          );
        }
        throw err;
      }
    },

    /**
     * Authorises with what the end user chose or typed into the platform's form, exactly as
     * `PUT .../authorization` does: 200 linked now, 201 linked already. A refusal throws the API's 400.
     */
    async authorizeWith(
      company: LinkCompany,
      connection: LinkConnection,
      values: Record<string, string>,
    ): Promise<LinkStatusCode | 'pending'> {
      const { alreadyLinked, pending } = await connections.authorize(company.client, company.companyId, connection.id, values);
      if (pending) return 'pending';
      return alreadyLinked ? 201 : 200;
    },

    /** The emulator's scenarios a Sandbox's Link form offers (`EMULATOR=true` only; docs/emulator.md). */
    scenariosFor(platformKey: string): readonly string[] | undefined {
      return deps.scenarios && findConnector(platformKey)?.sandbox ? deps.scenarios.names : undefined;
    },

    redirectFacts(company: LinkCompany, connection: LinkConnection, statusCode: LinkStatusCode): RedirectFacts {
      return {
        clientId: company.client.id,
        companyId: company.companyId,
        companyName: company.companyName,
        connectionId: connection.id,
        integrationId: connection.integrationId,
        sourceId: connection.sourceId,
        platformKey: connection.platformKey,
        platformName: connection.platformName,
        sourceType: connection.sourceType,
        statusCode,
      };
    },
    ...oauth,
  };
  return service;
}

export type LinkService = ReturnType<typeof createLinkService>;
