import type { FastifyInstance } from 'fastify';
import type { Client } from '../clients/clients.store.js';
import type { SyncsService } from '../syncs/syncs.service.js';
import type { DataSetsService } from '../data/data-sets.service.js';
import { chart, h, table, when } from './portal-layout.js';
import { sessionOf } from './portal-session.js';
import { parseDoc, type Json } from './portal-request.js';

export interface CompanyChartsDeps {
  syncs: SyncsService;
  dataSets: DataSetsService;
}

/** Pull operations read for the sync-duration chart: enough to find the latest of every data type of a company. */
export const HISTORY_READ = 200;

/**
 * What the portal's script draws (see portal-assets.ts): one bar per label. `indexAxis: 'y'` lays the bars
 * horizontally, so every data type's name has a line of its own and the chart grows with their number instead of
 * dropping names.
 */
export interface ChartSpec {
  type: 'bar' | 'line';
  indexAxis?: 'x' | 'y';
  valueTitle?: string;
  labels: string[];
  /** Shorter names drawn on the axis (`''` for none) where `labels` (kept for tooltips) would crowd it. */
  tickLabels?: string[];
  datasets: { label: string; data: (number | null)[] }[];
}

export function seconds(from: unknown, to: unknown): number | undefined {
  if (typeof from !== 'string' || typeof to !== 'string') return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined;
}

/** A company's latest pull operations, newest first: what the durations chart (and the page's history table) read. */
export async function recentSyncs(syncs: SyncsService, client: Client, companyId: string): Promise<Json[]> {
  const { records } = await syncs.history(client, companyId, { page: 1, pageSize: HISTORY_READ, orderBy: '-requested' });
  return records.map(parseDoc);
}

/** The latest finished sync of each data type among `recent` (newest first) and how long it took, longest first. */
function latestDurations(recent: readonly Json[]) {
  const latest = new Map<string, { dataType: string; requested: string; seconds: number }>();
  for (const op of recent) {
    const took = seconds(op.requested, op.completed);
    if (took !== undefined && !latest.has(op.dataType))
      latest.set(op.dataType, { dataType: op.dataType, requested: op.requested, seconds: took });
  }
  return [...latest.values()].sort((a, b) => b.seconds - a.seconds || a.dataType.localeCompare(b.dataType));
}

/** Records per data type, most first. */
async function sortedCounts(dataSets: DataSetsService, client: Client, companyId: string) {
  return [...(await dataSets.recordCounts(client, companyId))]
    .map(([dataType, total]) => ({ dataType, total }))
    .sort((a, b) => b.total - a.total || a.dataType.localeCompare(b.dataType));
}

/** The company page's two charts, each with its figures as a table; `recent` is the page's read of `recentSyncs`. */
export async function companyCharts(deps: CompanyChartsDeps, client: Client, companyId: string, recent: readonly Json[]): Promise<string> {
  const api = `/portal/api/companies/${h(companyId)}/charts`;
  const durations = latestDurations(recent);
  const counts = await sortedCounts(deps.dataSets, client, companyId);
  return `<div class="charts">
${chart({
  id: 'sync-durations',
  title: 'Latest sync duration by data type (seconds)',
  src: `${api}/sync-durations`,
  table: table(
    'Latest sync durations',
    ['Data type', 'Requested', { label: 'Seconds', className: 'num' }],
    durations.map((d) => [h(d.dataType), when(d.requested), { html: d.seconds.toFixed(1), className: 'num' }]),
  ),
})}
${chart({
  id: 'records-per-type',
  title: 'Records per data type',
  src: `${api}/records`,
  table: table(
    'Records per data type',
    ['Data type', { label: 'Records', className: 'num' }],
    counts.map((c) => [h(c.dataType), { html: c.total.toLocaleString('en-GB'), className: 'num' }]),
  ),
})}
</div>`;
}

/** Chart data: JSON the portal's script draws (and a client's own tools may read, with the session). */
export function registerCompanyCharts(scope: FastifyInstance, deps: CompanyChartsDeps): void {
  const config = { public: true };

  scope.get<{ Params: { companyId: string } }>('/api/companies/:companyId/charts/sync-durations', { config }, async (request) => {
    const durations = latestDurations(await recentSyncs(deps.syncs, sessionOf(request).client, request.params.companyId));
    return barsByDataType(
      'seconds',
      'Latest sync (seconds)',
      durations.map((d) => ({ dataType: d.dataType, value: Number(d.seconds.toFixed(1)) })),
    );
  });

  scope.get<{ Params: { companyId: string } }>('/api/companies/:companyId/charts/records', { config }, async (request) => {
    const counts = await sortedCounts(deps.dataSets, sessionOf(request).client, request.params.companyId);
    return barsByDataType(
      'records',
      'Records',
      counts.map((c) => ({ dataType: c.dataType, value: c.total })),
    );
  });
}

/** One horizontal bar per data type, in the order given. */
function barsByDataType(valueTitle: string, label: string, bars: { dataType: string; value: number }[]): ChartSpec {
  return {
    type: 'bar',
    indexAxis: 'y',
    valueTitle,
    labels: bars.map((b) => b.dataType),
    datasets: [{ label, data: bars.map((b) => b.value) }],
  };
}
