// The targets (2 cores, load generator on the same machine, SQLite), checked against a run's figures.
// The benchmark only reports them: a missed target never changes the exit code.

export const TARGETS = {
  page1CeilingRatio: 0.3,
  page1P99Ms: 20,
  lastPageToPage1: 0.8,
  compoundToPage1: 0.3,
  bigPageMBps: 100,
  ingestRecordsPerSecond: 100_000,
  ingestPeakRssMB: 300,
  duringSyncToIdle: 0.5,
  startMs: 1000,
};

/** Issue 15's targets for the two stores side by side. */
export const STORE_TARGETS = {
  postgresPage1ToSqlite: 0.5,
  postgresPage1P99Ms: 30,
  postgresLastPagesToPage1: 0.8,
  postgresCompaniesLastToPage1: 0.5,
  sqlitePage1CeilingRatio: 0.3,
  resyncToBareLoop: 0.8,
  resyncPeakRssMB: 300,
};

const ratio = (value) => value.toFixed(2);

/** The target of a read scenario, given its figures and page 1's: {text, met, detail} or undefined for none. */
export function readTarget(key, figures, page1) {
  const toPage1 = page1 ? figures.requestsPerSecond / page1.requestsPerSecond : NaN;
  switch (key) {
    case 'list-page1':
      return {
        text: `≥ ${TARGETS.page1CeilingRatio} × ceiling and p99 ≤ ${TARGETS.page1P99Ms} ms`,
        met:
          figures.ratioToCeiling >= TARGETS.page1CeilingRatio &&
          figures.latencyP99Ms !== null &&
          figures.latencyP99Ms <= TARGETS.page1P99Ms,
        detail: `${ratio(figures.ratioToCeiling)} × ceiling, p99 ${figures.latencyP99Ms ?? '—'} ms`,
      };
    case 'list-last':
    case 'paid-last':
      return {
        text: `≥ ${TARGETS.lastPageToPage1} × page 1`,
        met: toPage1 >= TARGETS.lastPageToPage1,
        detail: `${ratio(toPage1)} × page 1`,
      };
    case 'compound-page1':
    case 'compound-deep':
      return {
        text: `≥ ${TARGETS.compoundToPage1} × page 1`,
        met: toPage1 >= TARGETS.compoundToPage1,
        detail: `${ratio(toPage1)} × page 1`,
      };
    case 'pagesize-5000':
      return {
        text: `≥ ${TARGETS.bigPageMBps} MB/s`,
        met: figures.megabytesPerSecond >= TARGETS.bigPageMBps,
        detail: `${figures.megabytesPerSecond} MB/s`,
      };
    case 'during-sync':
      return {
        text: `≥ ${TARGETS.duringSyncToIdle} × idle page 1`,
        met: toPage1 >= TARGETS.duringSyncToIdle,
        detail: `${ratio(toPage1)} × idle page 1`,
      };
    default:
      return undefined;
  }
}

export function ingestTargets(ingest) {
  return {
    recordsPerSecond: {
      text: `≥ ${TARGETS.ingestRecordsPerSecond.toLocaleString('en')} records/s`,
      met: ingest.recordsPerSecond >= TARGETS.ingestRecordsPerSecond,
    },
    peakRss: { text: `≤ ${TARGETS.ingestPeakRssMB} MiB`, met: ingest.peakRssBytes / 2 ** 20 <= TARGETS.ingestPeakRssMB },
  };
}

export function startTarget(startMs) {
  return { text: `< ${TARGETS.startMs} ms`, met: startMs < TARGETS.startMs };
}
