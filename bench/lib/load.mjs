// Load generation: one autocannon run per scenario, and the ceiling server it is compared with.
import path from 'node:path';
import { fork } from 'node:child_process';
import autocannon from 'autocannon';
import { BENCH_DIR } from './config.mjs';
import { request } from './http.mjs';

/**
 * Runs autocannon against `url` after one warm-up request for the same URL. `stopWhen` (a promise) ends the run
 * early. Returns the figures the report shows; requests/s and MB/s are totals over the measured duration.
 */
export async function measure({ url, headers = {}, connections, durationSeconds, stopWhen, warm = true }) {
  const warmUpMs = warm ? await timed(() => warmUp(url, headers)) : undefined;

  const instance = autocannon({
    url,
    headers,
    connections,
    duration: durationSeconds,
    // A 5,000-record page at 10 connections can take seconds; count it late rather than as a timeout.
    timeout: 60,
    // autocannon ends a run at its next sample tick (every second by default); tick every 100 ms when the run
    // may be stopped early, so it ends close to the moment it is told to. (req/s here is total / duration, so
    // the sample length does not change the figures.)
    ...(stopWhen ? { sampleInt: 100 } : {}),
  });
  // autocannon keeps a progress bar only when asked (autocannon.track); nothing is printed here.
  let finished = false;
  let stoppedEarly = false;
  const stop = () => {
    if (finished) return;
    stoppedEarly = true;
    instance.stop();
  };
  // A failed stopWhen ends the load too; its caller sees the failure where it awaits that promise.
  void stopWhen?.then(stop, stop);
  const started = performance.now();
  const result = await new Promise((resolve, reject) => {
    instance.on('done', resolve);
    instance.on('error', reject);
  });
  finished = true;
  // autocannon rounds its duration to 10 ms; a run stopped at once would divide by zero.
  const seconds = result.duration || Math.max(0.001, (performance.now() - started) / 1000);
  return {
    requestsPerSecond: round(result.requests.total / seconds, 1),
    requests: result.requests.total,
    seconds: round(seconds, 2),
    // No completed request means no latency to report (autocannon would say 0 ms).
    latencyP50Ms: result.requests.total ? result.latency.p50 : null,
    latencyP99Ms: result.requests.total ? result.latency.p99 : null,
    latencyMaxMs: result.requests.total ? result.latency.max : null,
    megabytesPerSecond: round(result.throughput.total / seconds / 1e6, 2),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    stoppedEarly,
    /** The warm-up request alone, in ms: the one latency known when no request of the run completed. */
    warmUpMs,
  };
}

async function timed(action) {
  const started = performance.now();
  await action();
  return round(performance.now() - started, 1);
}

/** One request for `url`, body read, so the run does not measure a cold first answer. */
export async function warmUp(url, headers = {}) {
  return (await request(url, { headers })).status;
}

/** Starts bench/ceiling-server.mjs answering with a body of `bodyLength` bytes; resolves to {url, stop}. */
export async function startCeiling(bodyLength) {
  const child = fork(path.join(BENCH_DIR, 'ceiling-server.mjs'), [String(bodyLength)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the ceiling server exited (code ${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}/companies/x/data/invoices?page=1&pageSize=100`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export const round = (value, digits) => Math.round(value * 10 ** digits) / 10 ** digits;
