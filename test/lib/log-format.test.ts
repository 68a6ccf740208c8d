import { describe, expect, it } from 'vitest';
import { defaultLogFormat, logFormat } from '../../src/lib/log-format.js';
import { loadConfig } from '../../src/config.js';

describe('LOG_FORMAT', () => {
  it('defaults to readable lines on a terminal and JSON lines anywhere else', () => {
    expect(defaultLogFormat(true)).toBe('pretty');
    expect(defaultLogFormat(false)).toBe('json');
    expect(logFormat(undefined, true)).toBe('pretty');
    expect(logFormat('', false)).toBe('json');
  });

  it('takes either format whatever stdout is', () => {
    expect(logFormat('json', true)).toBe('json');
    expect(logFormat('pretty', false)).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
  });

  it('refuses any other value, saying which are allowed', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'bogus' })).toThrow('LOG_FORMAT must be pretty or json, got "bogus"');
    expect(() => logFormat('JSON', false)).toThrow(/LOG_FORMAT/);
  });
});
