/**
 * Generation rate and memory of the banking and commerce Sandboxes (not a test):
 *   node --import tsx test/connectors/sandbox/banking/bench.ts <dataType> <invoices> [epoch]
 * e.g. `banking-transactions 500000` (1,000,000 transactions) or `commerce-orders 1000000`.
 */
import type { SandboxConnector as Connector } from '../../../../src/connectors/sandbox/generated-source.js';
import type { DataType } from '../../../../src/codat-model/data-types.js';
import { bankingSandbox } from '../../../../src/connectors/sandbox/banking/index.js';
import { commerceSandbox } from '../../../../src/connectors/sandbox/commerce/index.js';

const [dataType = 'banking-transactions', invoices = '500000', epoch = '0', serialise = ''] = process.argv.slice(2);
const connector: Connector = dataType.startsWith('banking-') ? bankingSandbox : commerceSandbox;
const source = connector.dataTypes.get(dataType as DataType);
if (!source) throw new Error(`unknown data type ${dataType}`);
const settings = { seed: 7, invoices: Number(invoices), asOf: '2024-05-15' };
let peak = 0;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const started = performance.now();
const startedCpu = cpu();
let count = 0;
let bytes = 0;
for (const record of source.fetch({ settings, epoch: Number(epoch) })) {
  count++;
  if (serialise) bytes += JSON.stringify(record.data).length;
  if ((count & 0xffff) === 0) peak = Math.max(peak, process.memoryUsage().rss);
}
const seconds = (performance.now() - started) / 1000;
const cpuSeconds = cpu() - startedCpu;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  `${dataType} invoices=${invoices} epoch=${epoch}: ${count} records in ${seconds.toFixed(2)} s = ${Math.round(count / seconds)} records/s ` +
    `(CPU ${cpuSeconds.toFixed(2)} s = ${Math.round(count / cpuSeconds)} records per CPU second); ` +
    `peak RSS ${Math.round(peak / 2 ** 20)} MiB${serialise ? `; ${Math.round(bytes / count)} bytes/record as JSON` : ''}`,
);
