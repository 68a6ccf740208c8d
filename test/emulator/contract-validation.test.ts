import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { http, startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { OAS_DIR, codatOasOrSkip } from '../helpers/oas.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { loadConfig } from '../../src/config.js';
import { CODAT_FILES } from '../../src/codat-model/codat-oas-files.js';
import { sandboxCompany } from './emulator-helpers.js';
import { createCodatContract } from '../../src/emulator/codat-contract.js';

/**
 * Issue 33, `EMULATOR_VALIDATE=true`: every answer on a path Codat's files define is checked against them, and a
 * violation is reported in `Emulator-Contract-Violation`; without the files the service refuses to start.
 */

const HEADER = 'emulator-contract-violation';
const here = codatOasOrSkip();
const scratch = mkdtempSync(join(tmpdir(), 'ledgerport-contract-'));
let server: TestServer | undefined;
let tampered: TestServer | undefined;

beforeAll(async () => {
  if (!here) return;
  server = await startTestServer({ emulator: true, emulatorValidate: { codatOasDir: OAS_DIR } });
  // Codat's files with one change: a Company must carry a field Ledgerport never sends.
  for (const file of CODAT_FILES) {
    const text = readFileSync(resolve(OAS_DIR, file), 'utf8');
    if (file !== 'Codat-Platform.json') writeFileSync(join(scratch, file), text);
    else {
      const document = JSON.parse(text);
      const company = document.components.schemas.Company;
      company.required = [...(company.required ?? []), 'ledgerportNeverSends'];
      writeFileSync(join(scratch, file), JSON.stringify(document));
    }
  }
  tampered = await startTestServer({ emulator: true, emulatorValidate: { codatOasDir: scratch } });
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.close(), tampered?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!here)('answers checked against Codat’s files', () => {
  it('reports nothing on answers that hold, through the official SDK and over HTTP (success and error bodies alike)', async () => {
    const client = await server!.newClient();
    const sdk = new CodatPlatform({ authHeader: client.auth, serverURL: server!.url, retryConfig: { strategy: 'none' } });
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Checked');
    await waitForSyncs(server!, client, companyId);
    const contract = createCodatContract(OAS_DIR);
    for (const [template, path] of [
      ['/companies', '/companies'],
      ['/companies/:companyId', `/companies/${companyId}`],
      ['/companies/:companyId/connections', `/companies/${companyId}/connections`],
      ['/companies/:companyId/connections/:connectionId', `/companies/${companyId}/connections/${connectionId}`],
      ['/companies/:companyId/dataStatus', `/companies/${companyId}/dataStatus`],
      ['/companies/:companyId/data/invoices', `/companies/${companyId}/data/invoices?page=1&pageSize=5`],
      ['/companies/:companyId/data/history', `/companies/${companyId}/data/history`],
      // Errors: Codat's ErrorMessage.
      ['/companies/:companyId', '/companies/00000000-0000-4000-8000-000000000000'],
      ['/companies/:companyId/data/invoices', `/companies/${companyId}/data/invoices?page=0`],
    ]) {
      // Each path is one Codat's files define: the answer was checked, not skipped.
      expect(contract.defines('GET', template), template).toBe(true);
      const res = await http(server!, 'GET', path, { auth: client.auth });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
      expect(res.headers.get(HEADER), path).toBeNull();
    }
    // Ledgerport's own paths are not Codat's: never checked.
    expect(contract.defines('GET', '/emulator/faults')).toBe(false);
    const own = await http(server!, 'GET', '/emulator/faults', { auth: client.auth });
    expect(own.headers.get(HEADER)).toBeNull();
  });

  it('reports an answer that breaks the contract in Emulator-Contract-Violation, and leaves the body as it was', async () => {
    const client = await tampered!.newClient();
    const created = await http(tampered!, 'POST', '/companies', { auth: client.auth, body: { name: 'Broken contract' } });
    expect(created.status).toBe(200);
    const read = await http(tampered!, 'GET', `/companies/${created.body.id}`, { auth: client.auth });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, name: 'Broken contract' });
    const violation = read.headers.get(HEADER);
    expect(violation).toContain('Codat-Platform.json');
    expect(violation).toContain('ledgerportNeverSends');
    // Its list too (each company of the page is a Company); an error body is not a Company.
    expect((await http(tampered!, 'GET', '/companies', { auth: client.auth })).headers.get(HEADER)).toContain('ledgerportNeverSends');
    const missing = await http(tampered!, 'GET', '/companies/00000000-0000-4000-8000-000000000000', { auth: client.auth });
    expect(missing.status).toBe(404);
    expect(missing.headers.get(HEADER)).toBeNull();
  });
});

describe('without Codat’s files', () => {
  it('refuses to start, naming the variable; and EMULATOR_VALIDATE needs EMULATOR', async () => {
    const empty = join(scratch, 'empty');
    expect(() => loadConfig({ EMULATOR: 'true', EMULATOR_VALIDATE: 'true', CODAT_OAS_DIR: empty })).toThrow(
      /EMULATOR_VALIDATE=true needs Codat's OpenAPI files.*CODAT_OAS_DIR/,
    );
    expect(() => loadConfig({ EMULATOR_VALIDATE: 'true' })).toThrow(/EMULATOR=true/);

    assertCliBuilt();
    const bin = fileURLToPath(new URL('../../bin/ledgerport', import.meta.url));
    const env = { ...process.env, EMULATOR: 'true', EMULATOR_VALIDATE: 'true', CODAT_OAS_DIR: empty, PORT: '0' };
    const result = await new Promise<{ code: number; stderr: string }>((done) =>
      execFile(process.execPath, [bin, 'serve'], { env, timeout: 30_000 }, (err, _stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      ),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('CODAT_OAS_DIR');
  }, 60_000);
});
