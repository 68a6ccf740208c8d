import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { refuseNulCharacters } from '../../src/http/nul-guard.js';
import { ApiError } from '../../src/http/api-error.js';

/** The item a request with NUL text is refused with (undefined when it passes). */
async function refusal(body: unknown, query: unknown = {}, params: unknown = {}) {
  try {
    await refuseNulCharacters({ params, query, body } as FastifyRequest);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as ApiError).validation?.[0].itemId;
  }
}

describe('refuseNulCharacters', () => {
  it('names the first offence in document order: values and keys, nested in objects and arrays', async () => {
    expect(await refusal({ a: 'ok', b: [{ c: 'x' }, { d: 'y\u0000' }], e: '\u0000' })).toBe('b.1.d');
    expect(await refusal({ a: { 'k\u0000': 1 }, b: '\u0000' })).toBe('a.k\\u0000');
    expect(await refusal(['\u0000'])).toBe('0');
    expect(await refusal('\u0000')).toBe('body');
    expect(await refusal({ a: 'fine', b: [1, null, true, { c: 'also fine' }] })).toBeUndefined();
  });

  it('checks path parameters and the query before the body', async () => {
    expect(await refusal({ a: '\u0000' }, { q: 'x\u0000' })).toBe('q');
    expect(await refusal({ a: '\u0000' }, {}, { companyId: '\u0000' })).toBe('companyId');
  });

  it('walks deep and wide values without recursion, in time and memory linear in their size', async () => {
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const itemId = await refusal(deep);
    expect(itemId?.split('.')).toHaveLength(100_000);
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 'v']));
    expect(await refusal(wide)).toBeUndefined();
  });
});
