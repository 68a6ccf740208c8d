import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { CompanyReference, CompanyReferenceReader } from '../webhooks/events.js';
import { companyDoc } from './companies.store.js';

/**
 * The company an event is about: Codat's CompanyReference (Company/definitions/companyReference) for the payload's
 * `referenceCompany`, and its tags for consumers' filters. `links.portal` points at the company's page in the portal
 * (a person follows it in a browser; the API resource would answer 401 there). A company already gone is its id alone.
 */
export async function companyReference(
  executor: Kysely<Database>,
  clientId: string,
  companyId: string,
  publicUrl: string,
): Promise<CompanyReference> {
  const stored = await companyDoc(executor, clientId, companyId);
  const links = { portal: `${publicUrl}/portal/companies/${companyId}` };
  if (stored === undefined) return { reference: { id: companyId, links }, tags: {} };
  const doc = JSON.parse(stored) as { id: string; name: string; description?: string; tags?: Record<string, string> };
  const tags = doc.tags ?? {};
  return {
    reference: {
      id: doc.id,
      name: doc.name,
      ...(doc.description !== undefined ? { description: doc.description } : {}),
      links,
      tags,
    },
    tags,
  };
}

/** `companyReference` at the server's public address, as the services that record events are handed it. */
export function companyReferenceReader(publicUrl: () => string): CompanyReferenceReader {
  return (executor, clientId, companyId) => companyReference(executor, clientId, companyId, publicUrl());
}
