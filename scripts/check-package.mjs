#!/usr/bin/env node
// `npm run test:package`, the third leg of .ci/run: packs the project as `npm publish` would, installs the tarball
// into an empty prefix as a user would (`npm install -g`, no dev dependencies), runs the installed `ledgerport`
// and reads its health check. Ends with a "package: …" line. Where npm cannot install (the registry unreachable,
// better-sqlite3 not buildable) it skips with the reason, except under CI=true, where that fails the leg.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CI = process.env.CI === 'true';
const { name, version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

// What an installed package needs at run time, and what it must not carry.
const REQUIRED = [
  'package.json',
  'README.md',
  'LICENSE',
  'bin/ledgerport',
  'dist/main.js',
  'dist/cli/main.js',
  // Worker threads start from these files by address (src/lib/source-worker.ts), not through an import.
  'dist/syncs/version-writer-thread.js',
  // Each platform's declaration, read beside its built code at start (scripts/copy-declarations.mjs).
  'dist/connectors/xero/platform.yaml',
  'dist/connectors/sandbox/accounting/platform.yaml',
  'dist/uploads/intake-thread.js',
];
const FORBIDDEN = /\.map$|\.d\.ts$|\.tsbuildinfo$|^(src|test|bench|docs|scripts|\.ci)\//;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-package-'));
let server;
let mirror;

function cleanUp() {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  mirror?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanUp();
    process.exit(1);
  });
}

/** Runs a command to its end; never rejects. `npm` is the one running this script when there is one. */
function run(command, args, options = {}) {
  const [file, pre] = command === 'npm' && process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : [command, []];
  return new Promise((resolve) => {
    const child = spawn(file, [...pre, ...args], { cwd: ROOT, ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (err) => resolve({ code: -1, stdout, stderr: `${stderr}${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(0)} s`;
const kB = (bytes) => `${(bytes / 1024).toFixed(0)} kB`;
const tail = (text, lines = 30) => text.trimEnd().split('\n').slice(-lines).join('\n');

class Failure extends Error {}
/** npm could not install for a reason of this machine's, not the package's: `reason` goes on the summary line. */
class Skip extends Error {
  constructor(reason, detail) {
    super(detail);
    this.reason = reason;
  }
}

function freePort() {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Why npm could not install, when it is this machine's fault rather than the package's; undefined otherwise. */
function installBlocker(output) {
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|ENOTCACHED|request to .* failed/.test(output))
    return 'the npm registry is unreachable and the cache does not hold every dependency';
  if (/better-sqlite3/.test(output) && /gyp|prebuild-install|make:|compiler|Python/i.test(output))
    return 'npm cannot build better-sqlite3 here (no prebuilt binary reachable and no working build tools)';
  return undefined;
}

async function pack() {
  // prepack builds dist/ first, so the tarball holds the code of this checkout.
  const res = await run('npm', ['pack', '--json', '--pack-destination', tmp]);
  if (res.code !== 0) throw new Failure(`npm pack failed:\n${tail(res.stderr || res.stdout)}`);
  const [report] = JSON.parse(res.stdout.slice(res.stdout.search(/^\[/m)));
  const files = report.files.map((f) => f.path);
  const missing = REQUIRED.filter((file) => !files.includes(file));
  const extra = files.filter((file) => FORBIDDEN.test(file));
  if (missing.length) throw new Failure(`the package lacks ${missing.join(', ')}`);
  if (extra.length) throw new Failure(`the package holds files that do not run: ${extra.slice(0, 10).join(', ')}`);
  return { ...report, tarball: path.join(tmp, report.filename) };
}

/**
 * A prebuilt-binary mirror for better-sqlite3 on 127.0.0.1, serving the addon `npm ci` compiled in this checkout.
 * Online, better-sqlite3's install downloads a prebuilt binary (prebuild-install) and users never compile it;
 * here no host that serves them is reachable, so without a mirror the install would compile it again (about 100 s),
 * which checks better-sqlite3's build rather than this package. prebuild-install takes a mirror from
 * npm_config_better_sqlite3_binary_host, as operators behind a firewall set it. Asked for any other version (the
 * range resolved to a newer release), it answers 404 and the install compiles as it would without the mirror.
 * PACKAGE_CHECK_BUILD_NATIVE=1 skips the mirror. Returns the install's environment, and what it said of the addon.
 */
async function nativeMirror() {
  const pkgDir = path.join(ROOT, 'node_modules', 'better-sqlite3');
  const addon = path.join(pkgDir, 'build', 'Release', 'better_sqlite3.node');
  if (process.env.PACKAGE_CHECK_BUILD_NATIVE === '1') return { env: {}, native: 'better-sqlite3 compiled' };
  if (!fs.existsSync(addon)) return { env: {}, native: 'better-sqlite3 compiled (no addon built in this checkout)' };
  const { version: addonVersion } = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const asset = `better-sqlite3-v${addonVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const archive = path.join(tmp, asset);
  const tar = await run('tar', ['-czf', archive, '-C', pkgDir, 'build/Release/better_sqlite3.node']);
  if (tar.code !== 0) return { env: {}, native: `better-sqlite3 compiled (tar failed: ${tar.stderr.trim()})` };
  let served = false;
  mirror = http.createServer((request, response) => {
    if (request.url !== `/v${addonVersion}/${asset}`) return response.writeHead(404).end();
    served = true;
    response.writeHead(200, { 'Content-Type': 'application/gzip' });
    fs.createReadStream(archive).pipe(response);
  });
  await new Promise((resolve) => mirror.listen(0, '127.0.0.1', resolve));
  return {
    env: { npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${mirror.address().port}` },
    native: () => (served ? `better-sqlite3 ${addonVersion} prebuilt from this checkout's build` : 'better-sqlite3 compiled'),
  };
}

async function install(tarball, prefix, env) {
  // --prefer-offline: what the cache `npm ci` filled holds is taken from it unasked; only the rest is fetched.
  const args = ['install', '-g', '--prefix', prefix, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball];
  const res = await run('npm', args, { cwd: tmp, env: { ...process.env, ...env } });
  if (res.code === 0) return;
  const output = `${res.stdout}\n${res.stderr}`;
  const blocker = installBlocker(output);
  if (blocker && !CI) throw new Skip(blocker, tail(output, 15));
  const how = res.signal ? `killed by ${res.signal}` : `exit code ${res.code}`;
  throw new Failure(`npm install -g of the tarball failed (${how}${blocker ? `; ${blocker}` : ''}):\n${tail(output)}`);
}

async function healthy(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitCode !== null) throw new Failure(`ledgerport serve exited with ${server.exitCode}`);
    try {
      const res = await fetch(`${url}/healthz`);
      const body = await res.text();
      if (res.status === 200 && body === '{"status":"ok"}') return;
      throw new Failure(`/healthz answered ${res.status} ${body}`);
    } catch (err) {
      if (err instanceof Failure) throw err;
    }
    if (Date.now() > deadline) throw new Failure(`ledgerport serve did not answer /healthz within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  const started = Date.now();
  const packing = Date.now();
  const report = await pack();
  const packTime = seconds(packing);

  const prefix = path.join(tmp, 'prefix');
  const mirrored = await nativeMirror();
  const installing = Date.now();
  await install(report.tarball, prefix, mirrored.env);
  const native = typeof mirrored.native === 'function' ? mirrored.native() : mirrored.native;
  const installTime = seconds(installing);
  const bin = path.join(prefix, 'bin', 'ledgerport');

  // The installed command runs from a folder of its own, with a store in the temporary folder.
  const env = { ...process.env, DATABASE_URL: path.join(tmp, 'data', 'ledgerport.sqlite'), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  const versionRun = await run(bin, ['--version'], { cwd: tmp, env });
  if (versionRun.code !== 0 || versionRun.stdout.trim() !== version)
    throw new Failure(`ledgerport --version exited ${versionRun.code} printing "${versionRun.stdout.trim()}", not ${version}`);

  const port = await freePort();
  let output = '';
  server = spawn(bin, ['serve'], { cwd: tmp, env: { ...env, PORT: String(port) } });
  server.stdout.on('data', (chunk) => (output += chunk));
  server.stderr.on('data', (chunk) => (output += chunk));
  try {
    await healthy(`http://127.0.0.1:${port}`, 120_000);
    // A command other than serve, on the store the server created (with its first client).
    const list = await run(bin, ['clients', 'list'], { cwd: tmp, env });
    if (list.code !== 0 || !list.stdout.includes('"Default client"'))
      throw new Failure(`ledgerport clients list exited ${list.code}:\n${list.stdout}${list.stderr}`);
  } catch (err) {
    if (err instanceof Failure) err.message += `\nserver output:\n${tail(output)}`;
    throw err;
  }
  server.kill('SIGTERM');
  await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once('exit', resolve)));

  console.log(
    `package: ok, ${report.filename} ${kB(report.size)} packed (${kB(report.unpackedSize)} unpacked, ${report.entryCount} files); ` +
      `pack ${packTime}, install ${installTime} (${native}), total ${seconds(started)}; /healthz 200, --version ${version}, clients list ok`,
  );
}

try {
  await main();
} catch (err) {
  if (err instanceof Skip) {
    console.log(err.message);
    console.log(`package: skipped, ${err.reason}`);
  } else {
    console.error(err instanceof Failure ? err.message : err);
    console.log(`package: failed (${name} ${version})`);
    process.exitCode = 1;
  }
} finally {
  cleanUp();
}
