import type { LinkResult } from '../connectors/connector.js';
import { ConnectorError, isConnectorError } from '../connectors/connector-error.js';
import { findConnector } from '../connectors/registry.js';
import { realTime } from '../lib/clock.js';
import type { CustomParams } from './custom-params.js';
import type { ConnectionsService } from '../connections/connections.service.js';
import type { LinkCompany, LinkConnection } from './link-company.js';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { CredentialsStore } from '../connections/credentials.store.js';
import {
  keepOrganisationChoice,
  OAUTH_CALLBACK_PATH,
  organisationChoice,
  startOAuth,
  takeOAuthAttempt,
  type OAuthAttempt,
} from './oauth.js';
import type { LinkStatusCode } from './redirect.js';

/**
 * The Link service's OAuth2 part: an attempt started on the platform's consent page, ended by its callback (the code
 * exchanged and the connection linked), and the choice of an organisation when one consent covers several.
 */
// An OAuth attempt and an organisation choice expire after a security timeout: real time (src/lib/clock.ts).
export function oauthLink(parts: {
  deps: { db: Kysely<Database>; publicUrl: () => string; allowPrivate?: boolean; credentials?: CredentialsStore };
  connections: ConnectionsService;
  /** The company behind a Link address (the Link service's). */
  company(companyId: string): Promise<LinkCompany | undefined>;
  /** Links the connection with the platform's answer: 200 linked now, 201 linked already. */
  linkWith(company: LinkCompany, connectionId: string, result: LinkResult): Promise<LinkStatusCode>;
}) {
  const { deps } = parts;
  const { db } = deps;
  return {
    /** The OAuth2 attempt a callback's `state` names, taken once (see oauth.ts). */
    takeOAuthAttempt(state: string): Promise<OAuthAttempt | undefined> {
      return takeOAuthAttempt(db, state, realTime.now());
    },

    /** Starts an OAuth2 link attempt; returns the platform's consent address to send the end user to. */
    async startOAuth(company: LinkCompany, connection: LinkConnection, custom: CustomParams): Promise<string> {
      const flow = findConnector(connection.platformKey)?.oauth2;
      if (!flow) throw new Error(`platform ${connection.platformKey} has no OAuth2 flow`);
      return startOAuth(
        db,
        flow,
        deps.publicUrl(),
        { clientId: company.client.id, companyId: company.companyId, connectionId: connection.id, custom },
        realTime.now(),
      );
    },

    /**
     * Ends an OAuth2 attempt with the platform's redirect: the code is exchanged and the connection linked (200, or
     * 201 if it already was); refused consent leaves it as it was (403); a failed exchange is `connection.failed` (500).
     * A consent covering several organisations answers `{ choose }`: the key of the page where the end user picks one.
     */
    async finishOAuth(
      company: LinkCompany,
      connection: LinkConnection,
      attempt: OAuthAttempt,
      answer: { code?: string; error?: string; query: Record<string, string> },
    ): Promise<LinkStatusCode | { choose: string }> {
      const flow = findConnector(connection.platformKey)?.oauth2;
      if (!flow || answer.error || !answer.code) return 403;
      try {
        const result = await flow.exchange({
          code: answer.code,
          redirectUri: `${deps.publicUrl()}${OAUTH_CALLBACK_PATH}`,
          codeVerifier: attempt.codeVerifier,
          allowPrivate: deps.allowPrivate ?? false,
          query: answer.query,
        });
        if ('choices' in result) {
          if (result.choices.length === 0) throw new ConnectorError('invalid', 'the consent covers no organisation');
          if (result.choices.length > 1) {
            if (!deps.credentials) throw new Error('no credentials store: connections to this platform cannot be linked');
            return {
              choose: await keepOrganisationChoice(db, deps.credentials, attempt, result, realTime.now()),
            };
          }
          return parts.linkWith(company, connection.id, { settings: result.choices[0].settings, credentials: result.credentials });
        }
        return parts.linkWith(company, connection.id, result);
      } catch (err) {
        if (!isConnectorError(err)) throw err;
        await parts.connections.linkFailed(company.client, company.companyId, connection.id);
        return 500;
      }
    },

    /** A consent waiting for the end user to pick an organisation (read, not taken: the page showing the choice). */
    async organisationChoice(key: string) {
      if (!deps.credentials) return undefined;
      return organisationChoice(db, deps.credentials, key, realTime.now(), false);
    },

    /** Links the connection to the organisation the end user picked; undefined when the choice is gone or unknown. */
    async chooseOrganisation(
      key: string,
      organisationId: string,
    ): Promise<{ attempt: OAuthAttempt; statusCode: LinkStatusCode } | undefined> {
      if (!deps.credentials) return undefined;
      const found = await organisationChoice(db, deps.credentials, key, realTime.now(), true);
      const chosen = found?.choice.choices.find((c) => c.id === organisationId);
      if (!found || !chosen) return undefined;
      const company = await parts.company(found.attempt.companyId);
      if (!company || company.client.id !== found.attempt.clientId) return undefined;
      const statusCode = await parts.linkWith(company, found.attempt.connectionId, {
        settings: chosen.settings,
        credentials: found.choice.credentials,
      });
      return { attempt: found.attempt, statusCode };
    },
  };
}
