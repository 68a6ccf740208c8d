import { afterAll, describe, expect, it } from 'vitest';
import { createIntakeRunner } from '../../src/uploads/intake.js';
import type { IncomingFile } from '../../src/connectors/connector.js';

/**
 * The intake thread that reads statement files: the files' bytes move to it and come back with its answer (not
 * copied), and after a large file the thread is replaced (its grown heap goes back) without an upload noticing.
 */
const runner = createIntakeRunner({ threads: true });
afterAll(() => runner.close());

/** An MT940 statement of `count` transactions whose balances add up (cents, never floats). */
function mt940(count: number): Uint8Array {
  const lines = [':20:INTAKE', ':25:DE89370400440532013000', ':28C:1/1', ':60F:C240101EUR1000,00'];
  let cents = 100_000;
  for (let i = 0; i < count; i++) {
    const amount = 100 + (i % 5000);
    const credit = i % 3 !== 0;
    cents += credit ? amount : -amount;
    lines.push(
      `:61:2401${String(1 + (i % 28)).padStart(2, '0')}${credit ? 'C' : 'D'}${Math.floor(amount / 100)},${String(amount % 100).padStart(2, '0')}NTRFREF${i}//B${i}`,
    );
    lines.push(`:86:166?00GUTSCHRIFT?20Invoice ${100000 + i} payment reference ${i % 89}?32Counterparty ${i % 997} GmbH`);
  }
  lines.push(`:62F:C240128EUR${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`, '-');
  return new TextEncoder().encode(lines.join('\r\n') + '\r\n');
}

async function readAll(files: IncomingFile[]) {
  const intake = await runner.run('fstm', files, {}, '2026-11-24T00:00:00Z');
  let lines = 0;
  for await (const chunk of intake.records(0)) lines += chunk.split('\n').length;
  intake.release();
  return { accepted: intake.accepted, lines };
}

describe('the intake thread', () => {
  it('hands the bytes back with its answer, and reads on after a large file replaced its thread', async () => {
    const large = mt940(60_000);
    const original = large.slice();
    const file: IncomingFile = { name: 'large.sta', contentType: 'text/plain', bytes: large };
    const first = await readAll([file]);
    expect(first.lines).toBe(60_000);
    expect(first.accepted[0].report.statements?.[0]).toMatchObject({ transactions: 60_000, reconciles: true });
    // Moved there and back: the caller's file holds the same bytes as before (it keeps them as uploaded).
    expect(Buffer.compare(file.bytes, original)).toBe(0);

    // At once (the thread may still be the one that read the large file) and once it has had time to be replaced.
    const small = { name: 'small.sta', contentType: 'text/plain', bytes: mt940(10) };
    expect((await readAll([small])).lines).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await readAll([
      { ...small, bytes: mt940(12) },
      { name: 'other.sta', contentType: 'text/plain', bytes: mt940(3) },
    ]);
    expect(again.lines).toBe(12);
    expect(again.accepted.map((a) => a.report.statements?.[0].transactions)).toEqual([12, 3]);
  });

  it('hands the bytes back with a refusal too, and copies a file that shares its buffer instead of moving it', async () => {
    const shared = new Uint8Array(64);
    const broken = shared.subarray(0, 10);
    broken.set(new TextEncoder().encode(':20:X\r\n:25'));
    const file: IncomingFile = { name: 'broken.sta', contentType: 'text/plain', bytes: broken };
    await expect(runner.run('fstm', [file], {}, '2026-11-24T00:00:00Z')).rejects.toMatchObject({ name: 'FileRefused' });
    expect(new TextDecoder().decode(file.bytes)).toBe(':20:X\r\n:25');
    expect(shared.byteLength).toBe(64);
  });
});
