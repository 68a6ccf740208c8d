import { expect } from 'vitest';
import type { HttpResult } from './test-server.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Asserts the spec's Error response body: exactly statusCode, service, error, correlationId (a fresh GUID
 * also sent as X-Correlation-Id), and `validation` only when expected. Returns the body.
 */
export function expectErrorBody(
  res: HttpResult,
  status: number,
  expected: { error?: string | RegExp; service?: string; validation?: boolean } = {},
) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = res.body;
  const keys = ['statusCode', 'service', 'error', 'correlationId', ...(expected.validation ? ['validation'] : [])];
  expect(Object.keys(body).sort()).toEqual(keys.sort());
  expect(body.statusCode).toBe(status);
  expect(body.service).toBe(expected.service ?? 'PublicApi');
  expect(typeof body.error).toBe('string');
  if (typeof expected.error === 'string') expect(body.error).toBe(expected.error);
  else if (expected.error) expect(body.error).toMatch(expected.error);
  expect(body.correlationId).toMatch(GUID);
  expect(res.headers.get('x-correlation-id')).toBe(body.correlationId);
  if (expected.validation) {
    expect(Array.isArray(body.validation.errors)).toBe(true);
    expect(body.validation.warnings).toEqual([]);
    for (const item of body.validation.errors) {
      expect(typeof item.message).toBe('string');
      expect(item.message).toMatch(/\/docs\/errors$/);
    }
  }
  return body;
}
