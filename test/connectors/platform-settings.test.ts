import { describe, expect, it } from 'vitest';
import { checkPlatformSettings, offeredConnectors } from '../../src/connectors/registry.js';
import { setEnv } from '../helpers/env.js';

/*
 * What the operator sets for a platform (its API's address, its OAuth addresses) is checked at start, naming the
 * variable, rather than failing every request that reads it; whether an OAuth platform is offered reads its client id
 * alone.
 */
describe("the platforms' settings", () => {
  it('stops the start on an address that is no http(s) address, naming its variable', () => {
    expect(() => checkPlatformSettings({ XERO_CLIENT_ID: 'x', XERO_TOKEN_URL: 'ftp://identity.example' })).toThrow(
      /XERO_TOKEN_URL must be an http or https address/,
    );
    expect(() => checkPlatformSettings({ STRIPE_API_URL: 'api.stripe.example' })).toThrow(
      /STRIPE_API_URL must be an http or https address/,
    );
    // An OAuth address of a platform that is not offered (no client id) is not read.
    expect(() => checkPlatformSettings({ XERO_TOKEN_URL: 'ftp://identity.example' })).not.toThrow();
    expect(() => checkPlatformSettings({ QBO_CLIENT_ID: 'q', QBO_API_URL: 'http://127.0.0.1:9/v3' })).not.toThrow();
  });

  it('offers an OAuth platform by its client id, without reading its other settings', () => {
    const restore = setEnv({ XERO_CLIENT_ID: 'x', XERO_TOKEN_URL: 'not an address' });
    try {
      expect(offeredConnectors().map((c) => c.info.key)).toContain('gbol');
    } finally {
      restore();
    }
  });
});
