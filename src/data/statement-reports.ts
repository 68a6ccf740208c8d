import type { Client } from '../clients/clients.store.js';
import type { DataSetsService } from './data-sets.service.js';
import { buildPeriods, type PeriodRequest } from './financial-statements.js';

/** The three statements served under `/companies/{companyId}/data/financials/…`, each built from its monthly records. */
export const STATEMENTS = [
  { segment: 'balanceSheet', dataType: 'balanceSheet', kind: 'position', basis: false, title: 'Balance sheet' },
  { segment: 'profitAndLoss', dataType: 'profitAndLoss', kind: 'flow', basis: true, title: 'Profit and loss' },
  // Codat requires `reportInput` on the cash flow statement; the Sandbox's is built by the direct method (docs/sandbox.md).
  {
    segment: 'cashFlowStatement',
    dataType: 'cashFlowStatement',
    kind: 'flow',
    basis: true,
    reportInput: 'Direct',
    title: 'Cash flow statement',
  },
] as const;

export type Statement = (typeof STATEMENTS)[number];

export function findStatement(segment: string): Statement | undefined {
  return STATEMENTS.find((s) => s.segment === segment);
}

/**
 * A statement as the API answers it: its periods (most recent first), the company's currency and the months
 * available. The API's route and the portal's page both read it here, so they show the same figures.
 */
export async function readStatement(
  dataSets: DataSetsService,
  client: Client,
  companyId: string,
  statement: Statement,
  request: PeriodRequest,
): Promise<Record<string, unknown> & { reports: Record<string, unknown>[]; currency?: string }> {
  const docs = await dataSets.allRecords(client, companyId, statement.dataType);
  const months = docs.map((d) => JSON.parse(d) as Record<string, unknown> & { id: string; currency?: string });
  const { reports, earliest, latest } = buildPeriods(months, request, statement.kind);
  const currency = (await baseCurrency(dataSets, client, companyId)) ?? months[0]?.currency;
  return {
    ...(statement.basis ? { reportBasis: 'Accrual' } : {}),
    ...('reportInput' in statement ? { reportInput: statement.reportInput } : {}),
    ...(currency ? { currency } : {}),
    ...(latest ? { mostRecentAvailableMonth: latest } : {}),
    ...(earliest ? { earliestAvailableMonth: earliest } : {}),
    reports,
  };
}

async function baseCurrency(dataSets: DataSetsService, client: Client, companyId: string): Promise<string | undefined> {
  try {
    return (JSON.parse(await dataSets.single(client, companyId, 'company')) as { baseCurrency?: string }).baseCurrency;
  } catch {
    // No company info synced (or none readable): the monthly records' own currency is used instead.
    return undefined;
  }
}
