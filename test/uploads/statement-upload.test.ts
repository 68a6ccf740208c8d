import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { allRecords, statementConnection, statementSample, uploadFiles } from '../helpers/uploads.js';
import { linkedSandbox, waitForSyncs } from '../helpers/sandbox.js';
import { MALFORMED, SAMPLES } from '../helpers/statement-samples.js';
import { corpusFile } from '../helpers/statement-corpus.js';
import { addDecimals, compareDecimals } from '../../src/lib/decimal.js';
import { recordOfLine, type TransactionLine } from '../../src/connectors/bank-statements/banking-records.js';

/**
 * Statement files uploaded through the API and served as banking data. The facts checked come from the files
 * (their own opening and closing balances) and the source projects' expected outputs
 * (test/connectors/bank-statements/samples/README.md), never from numbers this code produced.
 */

let server: TestServer;
let client: TestClient;
beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
});
afterAll(async () => server?.close());

const nameOf = (path: string) => path.split('/')[1];
const sumOf = (records: { amount: number }[]) => addDecimals(['0', ...records.map((r) => String(r.amount))]);

async function imported(target: { companyId: string; connectionId: string }) {
  await waitForSyncs(server, client, target.companyId);
  return {
    accounts: await allRecords(server, client.auth, target, 'banking-accounts'),
    transactions: await allRecords(server, client.auth, target, 'banking-transactions'),
    balances: await allRecords(server, client.auth, target, 'banking-accountBalances'),
  };
}

describe('every sample statement file imports through the API', () => {
  it.each(SAMPLES)('$path', async (sample) => {
    const target = await statementConnection(server, client);
    const res = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
      { name: nameOf(sample.path), bytes: statementSample(sample.path) },
    ]);
    expect(res.status, res.text).toBe(200);
    const [file] = res.body.files;
    expect(file).toMatchObject({ fileName: nameOf(sample.path), format: sample.format });
    const statements = file.statements as {
      account: string;
      iban: string | null;
      from: string;
      to: string;
      transactions: number;
      openingBalance: number | null;
      closingBalance: number | null;
      reconciles: boolean;
    }[];
    expect(statements.reduce((n, s) => n + s.transactions, 0)).toBe(sample.transactions);

    const data = await imported(target);
    expect(data.transactions).toHaveLength(sample.transactions);
    expect(new Set(data.transactions.map((t) => t.id)).size).toBe(sample.transactions);

    // Per account: its first statement's opening + every transaction served = its last statement's closing.
    const accountOf = (s: { account: string; iban: string | null }) => data.accounts.find((a) => a.name === (s.iban ?? s.account));
    const accounts = [...new Map(statements.map((s) => [s.account, s])).keys()];
    for (const [i, account] of accounts.entries()) {
      const ofAccount = statements.filter((s) => s.account === account);
      const served = accountOf(ofAccount[0]);
      expect(served, account).toBeDefined();
      const transactions = data.transactions.filter((t) => t.accountId === served.id);
      expect(transactions).toHaveLength(ofAccount.reduce((n, s) => n + s.transactions, 0));
      const first = ofAccount[0];
      const last = ofAccount[ofAccount.length - 1];
      if (sample.balances)
        expect({ opening: first.openingBalance, closing: last.closingBalance }).toEqual({
          opening: Number(sample.balances[i].opening),
          closing: Number(sample.balances[i].closing),
        });
      if (first.openingBalance === null) continue;
      const adds = compareDecimals(addDecimals([String(first.openingBalance), sumOf(transactions)]), String(last.closingBalance)) === 0;
      expect(adds, `${account}: ${first.openingBalance} + ${sumOf(transactions)} vs ${last.closingBalance}`).toBe(!sample.unreconciled);
      // The served balances: the opening dated the day before the first date, the closing on the last.
      const balances = data.balances.filter((b) => b.accountId === served.id);
      expect(balances.find((b) => b.date === `${last.to}T00:00:00`)?.balance.current).toBe(last.closingBalance);
      expect(balances.some((b) => b.balance.current === first.openingBalance && b.date < `${first.from}T00:00:00`)).toBe(true);
    }
    if (sample.ledger) {
      // OFX states only the ledger balance: it is each account's current balance.
      expect(statements.map((s) => accountOf(s)?.balance.current)).toEqual(sample.ledger.map(Number));
    }
    if (sample.unreconciled) {
      expect(statements.every((s) => s.reconciles === false)).toBe(true);
      expect(res.body.warnings).toHaveLength(statements.length);
      for (const warning of res.body.warnings)
        expect(warning).toMatch(
          new RegExp(
            `${nameOf(sample.path)}: the MT940 statement of account \\S+ for \\d{4}-\\d{2}-\\d{2} to \\d{4}-\\d{2}-\\d{2} does not reconcile`,
          ),
        );
      const ops = await http(
        server,
        'GET',
        `/companies/${target.companyId}/data/history?query=${encodeURIComponent('dataType=banking-transactions')}`,
        { auth: client.auth },
      );
      expect(ops.status, ops.text).toBe(200);
      expect(ops.body.results[0].statusDescription).toMatch(/does not reconcile/);
    } else {
      expect(statements.every((s) => s.reconciles)).toBe(true);
      expect(res.body.warnings).toEqual([]);
    }
    for (const t of data.transactions) {
      expect(t.postedDate).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00$/);
      expect(typeof t.amount).toBe('number');
    }
  });

  it('imports several files of different formats in one upload', async () => {
    const target = await statementConnection(server, client);
    const files = SAMPLES.filter((s) => !s.unreconciled)
      .slice(0, 20)
      .map((s) => ({ name: nameOf(s.path), bytes: statementSample(s.path) }));
    const res = await uploadFiles(server, client.auth, target.companyId, target.connectionId, files);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.map((f: { format: string }) => f.format)).toEqual(SAMPLES.filter((s) => !s.unreconciled).map((s) => s.format));
    const data = await imported(target);
    expect(data.transactions).toHaveLength(SAMPLES.filter((s) => !s.unreconciled).reduce((n, s) => n + s.transactions, 0));
  });
});

describe('no duplicates', () => {
  it('gives no duplicate transactions when the same file is uploaded twice', async () => {
    const target = await statementConnection(server, client);
    const file = { name: 'sepa.sta', bytes: statementSample('mt940/wolph-betterplace-sepa_mt9401.sta') };
    expect((await uploadFiles(server, client.auth, target.companyId, target.connectionId, [file])).status).toBe(200);
    const once = await imported(target);
    expect((await uploadFiles(server, client.auth, target.companyId, target.connectionId, [file])).status).toBe(200);
    const twice = await imported(target);
    expect(twice.transactions.map((t) => t.id).sort()).toEqual(once.transactions.map((t) => t.id).sort());
    expect(twice.accounts).toHaveLength(once.accounts.length);
    const files = await http(server, 'GET', `/companies/${target.companyId}/files`, { auth: client.auth });
    expect(files.body).toHaveLength(2);
  });

  it('gives no duplicates for two overlapping files (the next export repeating some days)', async () => {
    const csv = new TextDecoder().decode(statementSample('csv/csv2ofx-schwab-checking.csv')).split(/\r?\n/).filter(Boolean);
    // Newest first: rows 1-3 are the newer export, rows 2-4 the older one; rows 2 and 3 are in both.
    const newer = [csv[0], ...csv.slice(1, 4)].join('\n');
    const older = [csv[0], ...csv.slice(2, 5)].join('\n');
    const target = await statementConnection(server, client);
    const enc = (text: string) => new TextEncoder().encode(text);
    expect(
      (await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'older.csv', bytes: enc(older) }])).status,
    ).toBe(200);
    expect((await imported(target)).transactions).toHaveLength(3);
    expect(
      (await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'newer.csv', bytes: enc(newer) }])).status,
    ).toBe(200);
    const data = await imported(target);
    expect(data.transactions).toHaveLength(4);
    expect(sumOf(data.transactions)).toBe('-215.27');
    // The account's balance is the latest statement's closing balance.
    expect(data.accounts[0].balance.current).toBe(878.47);
  });
});

describe('how uploads are kept and read back', () => {
  const project = (records: { id: string; amount: number; postedDate: string; description: string | null }[]) =>
    records
      .map((t) => ({ id: t.id, amount: t.amount, postedDate: t.postedDate, description: t.description }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));

  it("reads files kept before records were kept in id order (whole records, in the file's order) alone and beside newer ones", async () => {
    const target = await statementConnection(server, client);
    const file = { name: 'sepa.sta', bytes: statementSample('mt940/wolph-betterplace-sepa_mt9401.sta') };
    expect((await uploadFiles(server, client.auth, target.companyId, target.connectionId, [file])).status).toBe(200);
    const before = await imported(target);
    // Turned into what an earlier version kept: the bare list of statements, and chunks of whole records in any order.
    const db = server.store.db;
    const [row] = await db
      .selectFrom('uploads')
      .select(['id', 'parsed', 'uploaded'])
      .where('connection_id', '=', target.connectionId)
      .execute();
    await db
      .updateTable('uploads')
      .set({ parsed: JSON.stringify(JSON.parse(row.parsed as string).statements) })
      .where('id', '=', row.id)
      .execute();
    for (const chunk of await db.selectFrom('upload_chunks').select(['chunk', 'body']).where('upload_id', '=', row.id).execute()) {
      const records = chunk.body
        .split('\n')
        .map((line) => JSON.stringify(recordOfLine(JSON.parse(line) as TransactionLine, row.uploaded)))
        .reverse();
      await db
        .updateTable('upload_chunks')
        .set({ body: records.join('\n') })
        .where('upload_id', '=', row.id)
        .where('chunk', '=', chunk.chunk)
        .execute();
    }
    // Synced again from the old file alone, then beside a new upload of the same file.
    expect(
      (await http(server, 'POST', `/companies/${target.companyId}/data/queue/banking-transactions`, { auth: client.auth })).status,
    ).toBe(200);
    expect(project((await imported(target)).transactions)).toEqual(project(before.transactions));
    expect((await uploadFiles(server, client.auth, target.companyId, target.connectionId, [file])).status).toBe(200);
    expect(project((await imported(target)).transactions)).toEqual(project(before.transactions));
  });

  it('reads more uploads than it merges at once (64) as they come, with the same data', async () => {
    const target = await statementConnection(server, client);
    const file = { name: 'cmxl.sta', bytes: statementSample('mt940/wolph-cmxl-mt940.sta') };
    expect((await uploadFiles(server, client.auth, target.companyId, target.connectionId, [file])).status).toBe(200);
    const once = await imported(target);
    for (const count of [20, 20, 20, 5]) {
      expect(
        (
          await uploadFiles(
            server,
            client.auth,
            target.companyId,
            target.connectionId,
            Array.from({ length: count }, () => file),
          )
        ).status,
      ).toBe(200);
    }
    const files = await http(server, 'GET', `/companies/${target.companyId}/files`, { auth: client.auth });
    expect(files.body).toHaveLength(66);
    expect(project((await imported(target)).transactions)).toEqual(project(once.transactions));
  });
});

describe('refusals', () => {
  async function servedState(target: { companyId: string; connectionId: string }) {
    await waitForSyncs(server, client, target.companyId);
    const files = await http(server, 'GET', `/companies/${target.companyId}/files`, { auth: client.auth });
    return {
      files: files.body,
      transactions: (await allRecords(server, client.auth, target, 'banking-transactions')).map((t) => t.id).sort(),
    };
  }

  it.each(MALFORMED)('refuses $path with a 400 naming the file and where it breaks, and imports nothing', async ({ path, where }) => {
    const target = await statementConnection(server, client);
    expect(
      (
        await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
          { name: 'good.sta', bytes: statementSample('mt940/wolph-sberbank-171011_01234945.sta') },
        ])
      ).status,
    ).toBe(200);
    const before = await servedState(target);
    const res = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
      { name: nameOf(path), bytes: statementSample(path) },
    ]);
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors).toHaveLength(1);
    expect(body.validation.errors[0]).toMatchObject({ itemId: nameOf(path), validatorName: 'StatementFile' });
    expect(body.validation.errors[0].message).toMatch(new RegExp(`^${nameOf(path).replace(/\./g, '\\.')}: `));
    expect(body.validation.errors[0].message).toMatch(where);
    expect(await servedState(target)).toEqual(before);
  });

  it('refuses every truncated sample, and a good file beside a broken one imports nothing (all or none)', async () => {
    const target = await statementConnection(server, client);
    const before = await servedState(target);
    for (const sample of SAMPLES.filter((s) => s.format !== 'CSV')) {
      const bytes = statementSample(sample.path);
      for (const fraction of [0.3, 0.6, 0.9]) {
        const cut = bytes.subarray(0, Math.floor(bytes.length * fraction));
        const res = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
          { name: 'good.csv', bytes: statementSample('csv/csv2ofx-gls.csv') },
          { name: `cut-${nameOf(sample.path)}`, bytes: cut },
        ]);
        const body = expectErrorBody(res, 400, { validation: true });
        expect(
          body.validation.errors.map((e: { itemId: string }) => e.itemId),
          `${sample.path} cut at ${fraction}`,
        ).toEqual([`cut-${nameOf(sample.path)}`]);
      }
    }
    expect(await servedState(target)).toEqual(before);
  });

  it('refuses a CSV without a usable mapping, naming what is missing; a mapping part makes it readable', async () => {
    const target = await statementConnection(server, client);
    const csv = new TextEncoder().encode('Booked;Text;Value\n2024-01-02;Coffee;-3,50\n2024-01-03;Salary;1.000,00\n');
    const bare = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'bank.csv', bytes: csv }]);
    expect(expectErrorBody(bare, 400, { validation: true }).validation.errors[0].message).toMatch(/matches no preset.*mapping/);
    const partial = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'bank.csv', bytes: csv }], {
      mapping: JSON.stringify({
        date: { column: 'Booked', format: 'YYYY-MM-DD' },
        decimal: ',',
        description: ['Text'],
        currency: { value: 'EUR' },
      }),
    });
    expect(expectErrorBody(partial, 400, { validation: true }).validation.errors[0].message).toMatch(/amount column, or debit and credit/);
    const notJson = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'bank.csv', bytes: csv }], {
      mapping: '{date',
    });
    expect(expectErrorBody(notJson, 400, { validation: true }).validation.errors[0].itemId).toBe('mapping');
    // A mapping of the wrong shape is a 400 naming the field, never a failure of the server.
    const wrong: [unknown, RegExp][] = [
      [{ date: { column: 'Booked', format: 'DD-MM' }, amount: 'Value' }, /mapping\.date\.format: date\.format must be one of/],
      [{ date: 'Booked', amount: 'Value' }, /mapping\.date:/],
      [{ date: { column: 'Booked', format: 'YYYY-MM-DD' }, amount: 'Value', description: 5 }, /mapping\.description:/],
      [{ date: { column: 'Booked', format: 'YYYY-MM-DD' }, amount: 'Value', decimal: 'x' }, /mapping\.decimal:/],
      [
        { date: { column: 'Booked', format: 'YYYY-MM-DD' }, amount: 'Value', colour: 'red' },
        /mapping\.colour: colour is not a mapping field/,
      ],
      [{ date: { column: 'Booked', format: 'YYYY-MM-DD' }, amount: 'Value', thousands: '.' }, /mapping\.thousands:/],
      [{ preset: 7 }, /mapping\.preset/],
      [['Booked'], /mapping/],
    ];
    for (const [mapping, message] of wrong) {
      const res = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'bank.csv', bytes: csv }], {
        mapping: JSON.stringify(mapping),
      });
      expect(expectErrorBody(res, 400, { validation: true }).validation.errors[0].message, JSON.stringify(mapping)).toMatch(message);
    }
    const mapped = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'bank.csv', bytes: csv }], {
      mapping: JSON.stringify({
        date: { column: 'Booked', format: 'YYYY-MM-DD' },
        amount: 'Value',
        decimal: ',',
        thousands: ['.'],
        description: ['Text'],
        currency: { value: 'EUR' },
      }),
    });
    expect(mapped.status, mapped.text).toBe(200);
    const data = await imported(target);
    expect(data.transactions.map((t) => t.amount).sort()).toEqual([-3.5, 1000]);
  });

  it('takes at most 20 files of at most 10 MB each, with its own body limit; anything but multipart is a 400', async () => {
    const target = await statementConnection(server, client);
    const file = { name: 'x.sta', bytes: statementSample('mt940/wolph-sberbank-171011_01234945.sta') };
    const many = await uploadFiles(
      server,
      client.auth,
      target.companyId,
      target.connectionId,
      Array.from({ length: 21 }, () => file),
    );
    expect(expectErrorBody(many, 400, { validation: true }).validation.errors[0].message).toMatch(/at most 20/);
    // 10 MB of statement is accepted although it is above the server's 5 MB JSON body limit.
    const big = new TextEncoder().encode(bigMt940(10 * 1024 * 1024 - 1024));
    const accepted = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'big.sta', bytes: big }]);
    expect(accepted.status, accepted.text.slice(0, 500)).toBe(200);
    const tooBig = new Uint8Array(10 * 1024 * 1024 + 1);
    expectErrorBody(
      await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'huge.sta', bytes: tooBig }]),
      413,
      { error: /huge\.sta is larger than 10 MB/ },
    );
    expectErrorBody(
      await http(server, 'POST', `/companies/${target.companyId}/connections/${target.connectionId}/files`, {
        auth: client.auth,
        body: { file: 'x' },
      }),
      400,
      { validation: true },
    );
    const none = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [], { note: 'nothing' });
    expect(expectErrorBody(none, 400, { validation: true }).validation.errors[0].itemId).toBe('file');
  }, 60_000);
});

describe('files: list, download, other connections, deletion', () => {
  it("lists uploads in Codat's File shape and downloads one file as itself, several as a zip, by day", async () => {
    const target = await statementConnection(server, client);
    const a = statementSample('mt940/wolph-cmxl-mt940.sta');
    const b = statementSample('ofx/ofxparse-checking.ofx');
    expect((await uploadFiles(server, client.auth, target.companyId, target.connectionId, [{ name: 'cmxl.sta', bytes: a }])).status).toBe(
      200,
    );
    const one = await fetch(`${server.url}/companies/${target.companyId}/files/download`, { headers: { authorization: client.auth } });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toBe('application/octet-stream');
    expect(one.headers.get('content-disposition')).toMatch(/filename="cmxl\.sta"/);
    expect(new Uint8Array(await one.arrayBuffer())).toEqual(a);

    expect(
      (
        await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
          { name: 'checking.ofx', bytes: b },
          { name: 'cmxl.sta', bytes: a },
        ])
      ).status,
    ).toBe(200);
    const list = await http(server, 'GET', `/companies/${target.companyId}/files`, { auth: client.auth });
    expect(list.status).toBe(200);
    expect(list.body.map((f: { fileName: string }) => f.fileName)).toEqual(['cmxl.sta', 'checking.ofx', 'cmxl.sta']);
    for (const f of list.body) {
      expect(Object.keys(f).sort()).toEqual(['displayName', 'fileName', 'sourceType', 'uploaded']);
      expect(f.sourceType).toBe('Banking');
    }
    const today = list.body[0].uploaded.slice(0, 10);
    const zip = await fetch(`${server.url}/companies/${target.companyId}/files/download?date=${today}`, {
      headers: { authorization: client.auth },
    });
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-disposition')).toMatch(/\.zip"/);
    const entries = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    expect(Object.keys(entries).sort()).toEqual(['checking.ofx', 'cmxl (2).sta', 'cmxl.sta']);
    expect(entries['checking.ofx']).toEqual(b);
    expectErrorBody(await http(server, 'GET', `/companies/${target.companyId}/files/download?date=2001-01-01`, { auth: client.auth }), 404);
    for (const bad of ['soon', '2024-02-30', '2024-02-30T00:00:00Z', '2024-05-01%20(foo)', '2024-05-01T25:00:00Z']) {
      expectErrorBody(await http(server, 'GET', `/companies/${target.companyId}/files/download?date=${bad}`, { auth: client.auth }), 400, {
        validation: true,
      });
    }
    // An instant with its zone counts on the UTC day it falls on.
    const [y, m, d] = today.split('-').map(Number);
    const evening = new Date(Date.UTC(y, m - 1, d) - 3_600_000).toISOString().slice(0, 10);
    expect(
      (
        await fetch(`${server.url}/companies/${target.companyId}/files/download?date=${evening}T23:30:00-05:00`, {
          headers: { authorization: client.auth },
        })
      ).status,
    ).toBe(200);
  });

  it('keeps documents uploaded to other connections as they are, and refuses what Codat does not take', async () => {
    const linked = await linkedSandbox(server, client, 'bsbx');
    const pdf = new TextEncoder().encode('%PDF-1.4\n%\u00e2\u00e3\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    const res = await uploadFiles(server, client.auth, linked.companyId, linked.connectionId, [
      { name: 'passport.pdf', bytes: pdf, type: 'application/pdf' },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files).toEqual([{ fileName: 'passport.pdf', size: pdf.length }]);
    const refused = await uploadFiles(server, client.auth, linked.companyId, linked.connectionId, [{ name: 'run.exe', bytes: pdf }]);
    expect(expectErrorBody(refused, 400, { validation: true }).validation.errors[0].itemId).toBe('run.exe');
    const list = await http(server, 'GET', `/companies/${linked.companyId}/files`, { auth: client.auth });
    expect(list.body.map((f: { fileName: string }) => f.fileName)).toEqual(['passport.pdf']);
  });

  it('refuses a NUL in a file name or a form field, and keeps the files of a deleted connection listed without their records', async () => {
    const target = await statementConnection(server, client);
    const nulName = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
      { name: 'a\u0000.sta', bytes: statementSample('mt940/wolph-sberbank-171011_01234945.sta') },
    ]);
    expectErrorBody(nulName, 400, { validation: true });
    const nulField = await uploadFiles(
      server,
      client.auth,
      target.companyId,
      target.connectionId,
      [{ name: 'a.csv', bytes: statementSample('csv/csv2ofx-gls.csv') }],
      { mapping: '{"preset":"gls\u0000"}' },
    );
    expectErrorBody(nulField, 400, { validation: true });
    expect(
      (
        await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
          { name: 'x.sta', bytes: statementSample('mt940/wolph-sberbank-171011_01234945.sta') },
        ])
      ).status,
    ).toBe(200);
    await waitForSyncs(server, client, target.companyId);
    expect(
      (await http(server, 'DELETE', `/companies/${target.companyId}/connections/${target.connectionId}`, { auth: client.auth })).status,
    ).toBe(200);
    expect(
      (await http(server, 'GET', `/companies/${target.companyId}/files`, { auth: client.auth })).body.map(
        (f: { fileName: string }) => f.fileName,
      ),
    ).toEqual(['x.sta']);
    const kept = await server.store.db.selectFrom('uploads').select(['id', 'parsed']).where('company_id', '=', target.companyId).execute();
    expect(kept.map((r) => r.parsed)).toEqual([null]);
    expect(await server.store.db.selectFrom('upload_chunks').select('chunk').where('upload_id', '=', kept[0].id).execute()).toEqual([]);
  });

  it('is scoped to the calling client, and the files go with their company', async () => {
    const target = await statementConnection(server, client);
    expect(
      (
        await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
          { name: 'x.sta', bytes: statementSample('mt940/wolph-sberbank-171011_01234945.sta') },
        ])
      ).status,
    ).toBe(200);
    const other = await server.newClient();
    expectErrorBody(await http(server, 'GET', `/companies/${target.companyId}/files`, { auth: other.auth }), 403);
    expectErrorBody(await http(server, 'GET', `/companies/${target.companyId}/files/download`, { auth: other.auth }), 403);
    expectErrorBody(
      await uploadFiles(server, other.auth, target.companyId, target.connectionId, [
        { name: 'x.sta', bytes: statementSample('mt940/wolph-sberbank-171011_01234945.sta') },
      ]),
      403,
    );
    await waitForSyncs(server, client, target.companyId);
    expect((await http(server, 'DELETE', `/companies/${target.companyId}`, { auth: client.auth })).status).toBe(204);
    const left = await server.store.db.selectFrom('uploads').select('id').where('company_id', '=', target.companyId).execute();
    expect(left).toEqual([]);
  });
});

/** A generated MT940 file of about `bytes` bytes: one statement whose balances add up. */
function bigMt940(bytes: number): string {
  const lines: string[] = [];
  let total = 0n;
  let size = 0;
  const head = ':20:BIG\n:25:12345678/0001\n:28C:1/1\n:60F:C240101EUR1000,00\n';
  for (let i = 0; size < bytes - 200; i++) {
    const cents = BigInt(100 + (i % 5000));
    const credit = i % 3 !== 0;
    total += credit ? cents : -cents;
    const amount = `${cents / 100n},${String(cents % 100n).padStart(2, '0')}`;
    const line = `:61:2401020102${credit ? 'C' : 'D'}${amount}NTRFREF${i}//B${i}\n:86:Payment ${i} to supplier number ${i % 977}\n`;
    lines.push(line);
    size += line.length;
  }
  const closing = 100000n + total;
  const mark = closing < 0n ? 'D' : 'C';
  const abs = closing < 0n ? -closing : closing;
  return `${head}${lines.join('')}:62F:${mark}240102EUR${abs / 100n},${String(abs % 100n).padStart(2, '0')}\n-\n`;
}

describe('what an upload answer says', () => {
  it('says in plain words how many problems it found, one or several', async () => {
    const target = await statementConnection(server, client);
    const one = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
      { name: 'broken.sta', bytes: statementSample('mt940/wolph-betterplace-sepa_snippet_broken.sta') },
    ]);
    expect(expectErrorBody(one, 400, { validation: true }).error).toBe(
      'ValidationException: A problem was found in the upload; nothing was imported.',
    );
    const two = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
      { name: 'broken.sta', bytes: statementSample('mt940/wolph-betterplace-sepa_snippet_broken.sta') },
      { name: 'empty.xml', bytes: statementSample('camt053/genkgo-camt053.v2.wrong.xml') },
    ]);
    expect(expectErrorBody(two, 400, { validation: true }).error).toBe(
      'ValidationException: 2 problems were found in the upload; nothing was imported.',
    );
  });

  it('names, in its warnings, the available balance a CAMT.053 statement without a booked one was read from', async () => {
    const target = await statementConnection(server, client);
    const res = await uploadFiles(server, client.auth, target.companyId, target.connectionId, [
      { name: 'clav-only.xml', bytes: corpusFile('camt053/genkgo-camt053.v2.with-account-name.xml') },
      { name: 'booked.xml', bytes: statementSample('camt053/viafintech-valid_example.xml') },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.warnings).toEqual([
      expect.stringMatching(/^clav-only\.xml: .*no booked closing balance \(CLBD\).*the available one, CLAV/),
    ]);
  });
});
