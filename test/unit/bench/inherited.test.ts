import { describe, expect, it } from 'vitest';
import { inheritedSettings } from '../../../bench/inherited.js';

describe('settings a benchmark run would take from its own environment', () => {
  it('names a service setting the benchmark leaves to the environment', () => {
    expect(inheritedSettings({ COMMIT_INTERVAL_MS: '40', PATH: '/usr/bin' })).toEqual(['COMMIT_INTERVAL_MS']);
  });

  it('names a sandbox knob and a secret given as a file, sorted, without their values', () => {
    const env = { SANDBOX_LATENCY_MS: '5', WEBHOOK_SECRET_FILE: '/run/secret', MAX_IN_FLIGHT: '10' };
    expect(inheritedSettings(env)).toEqual(['MAX_IN_FLIGHT', 'SANDBOX_LATENCY_MS', 'WEBHOOK_SECRET_FILE']);
  });

  it('leaves out what the benchmark sets itself for every process it starts', () => {
    const env = {
      KAFKA_BROKERS: '127.0.0.1:19092',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
      REDIS_URL: 'redis://127.0.0.1:16379',
      LOG_LEVEL: 'debug',
      SANDBOX_PORT: '9999',
      NODE_OPTIONS: '--inspect',
    };
    expect(inheritedSettings(env)).toEqual([]);
  });

  it('counts a setting set to an empty value: the service reads it too', () => {
    expect(inheritedSettings({ VENDOR_LIMITS: '' })).toEqual(['VENDOR_LIMITS']);
  });
});
