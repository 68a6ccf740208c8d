import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('webhook settings from the environment', () => {
  it('defaults to refusing private addresses and the built-in retry schedule', () => {
    const config = loadConfig({});
    expect(config.webhooksAllowPrivate).toBe(false);
    expect(config.webhookRetryScheduleMs).toBeUndefined();
  });

  it('reads WEBHOOKS_ALLOW_PRIVATE and WEBHOOK_RETRY_SCHEDULE', () => {
    const config = loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0, 5000,300000' });
    expect(config.webhooksAllowPrivate).toBe(true);
    expect(config.webhookRetryScheduleMs).toEqual([0, 5000, 300000]);
    expect(loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'false' }).webhooksAllowPrivate).toBe(false);
  });

  it('refuses values it cannot read', () => {
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOKS_ALLOW_PRIVATE must be true or false/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0,5s' })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE must be comma-separated durations in milliseconds/,
    );
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0,-5' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
});
