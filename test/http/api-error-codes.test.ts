import { describe, expect, it } from 'vitest';
import { ApiError, notFound, validationError } from '../../src/http/api-error.js';
import { alreadyInProgress } from '../../src/syncs/sync-queue.js';

/** An ApiError says what went wrong as a stable code, for code to branch on; its message is for people. */
describe('ApiError codes', () => {
  it("default to the status code's, and keep the one given", () => {
    expect(new ApiError(401, 'Unauthorized').code).toBe('Unauthorized');
    expect(notFound('Company x not found').code).toBe('NotFound');
    expect(new ApiError(429, 'Too many').code).toBe('TooManyRequests');
    expect(new ApiError(502, 'Bad gateway').code).toBe('Internal');
    expect(new ApiError(418, 'Teapot').code).toBe('BadRequest');
    expect(validationError('ValidationException: x', []).code).toBe('Validation');
    expect(new ApiError(409, 'ApiKeyLimitException: too many keys', { code: 'ApiKeyLimit' }).code).toBe('ApiKeyLimit');
  });

  it('name the condition a caller branches on, whatever its message says', () => {
    const err = alreadyInProgress({ clientId: 'c', companyId: 'co', connectionId: 'cn', dataType: 'invoices' }, 'op');
    expect(err).toMatchObject({ statusCode: 400, code: 'DatasetAlreadyInProgress' });
    expect(err.message).toMatch(/^DatasetAlreadyInProgressException: /);
  });
});
