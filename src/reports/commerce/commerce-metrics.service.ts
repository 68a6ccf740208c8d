import type { Client } from '../../clients/clients.store.js';
import type { DataType } from '../../codat-model/data-types.js';
import { ApiError } from '../../http/api-error.js';
import { boundedCache } from '../../lib/bounded-cache.js';
import type { RecordReader } from '../../records/record-reader.js';
import { notSynced } from '../report-requests.js';
import { commerceFacts, commerceFactsBytes, type CommerceFacts } from './commerce-facts.js';
import { commerceReport, type CommerceReportName } from './commerce-metrics.js';
import { commerceParameters } from './commerce-periods.js';

/*
 * Commerce metrics (docs/lending/commerce-metrics.md) over one commerce connection's orders, customers and company
 * info. A connection's orders are read once per version into the metrics' facts and kept: another report, date or
 * period shape on the same version reads nothing again.
 */

export interface CommerceMetricsDeps {
  dataSets: {
    readable(client: Client, companyId: string, dataType: DataType, connectionId?: string): Promise<{ versions: number[] }>;
  };
  records: Pick<RecordReader, 'eachKept' | 'first'>;
  cacheBytes?: number;
}

/** What the metrics need synced on the connection (Codat produces them only where a platform has all three). */
const INPUTS = ['commerce-orders', 'commerce-customers', 'commerce-companyInfo'] as const;

export function createCommerceMetricsService(deps: CommerceMetricsDeps) {
  const kept = boundedCache<CommerceFacts>({ bytes: deps.cacheBytes ?? 256 * 1024 * 1024, valueBytes: commerceFactsBytes });
  const making = new Map<string, Promise<CommerceFacts>>();

  return {
    /** A report; 400 naming a bad parameter, 404 for an unknown company or connection, 409 before its inputs have synced. */
    async report(client: Client, companyId: string, connectionId: string, name: CommerceReportName, query: Record<string, unknown>) {
      // The route's schema has already refused a missing parameter (400). Then the company and connection (404, or 403
      // for another client's), then the parameters' values (400), then the inputs (409).
      const versions = await Promise.all(
        INPUTS.map((dataType) =>
          deps.dataSets.readable(client, companyId, dataType, connectionId).then(
            (found) => found.versions,
            (error: unknown) => {
              if (!(error instanceof ApiError) || error.statusCode !== 409) throw error;
              return undefined;
            },
          ),
        ),
      );
      const missing = INPUTS.filter((_, i) => versions[i] === undefined);
      const parameters = commerceParameters(query);
      if (missing.length > 0) throw notSynced(name, missing);
      const [orders, , info] = versions as number[][];
      // Keyed by the versions: the company info (its base currency) is read only when the facts are made.
      const key = `${orders.join(',')} ${info.join(',')}`;
      let facts = kept.get(key);
      if (!facts) {
        let pending = making.get(key);
        if (!pending) {
          pending = baseCurrencyOf(deps.records, info)
            .then((baseCurrency) => commerceFacts(deps.records, Math.max(...orders), baseCurrency))
            .then((made) => {
              kept.set(key, made);
              return made;
            })
            .finally(() => making.delete(key));
          making.set(key, pending);
        }
        facts = await pending;
      }
      return commerceReport(name, facts, parameters);
    },
  };
}

/** The connection's base currency, as its company info says (none without one). */
async function baseCurrencyOf(records: Pick<RecordReader, 'first'>, info: number[]): Promise<string | undefined> {
  const doc = await records.first(info);
  const base = doc ? (JSON.parse(doc) as { baseCurrency?: unknown }).baseCurrency : undefined;
  return typeof base === 'string' && base !== '' ? base : undefined;
}

export type CommerceMetricsService = ReturnType<typeof createCommerceMetricsService>;
