import { describe, expect, it } from 'vitest';
import { parseRequestParams } from '../../../src/contract/params.js';

describe('parseRequestParams', () => {
  it('answers the parsed params of a valid request', () => {
    const parsed = parseRequestParams('vehicle-async', { licensePlate: 'ABC1D23' });
    expect(parsed).toEqual({ ok: true, value: { licensePlate: 'ABC1D23' } });
  });

  it('answers a message without the issue list for invalid params', () => {
    const parsed = parseRequestParams('vehicle-async', { licensePlate: 'ABC1D23', extra: 1 });
    expect(parsed.ok).toBe(false);
    expect(Object.keys(parsed).sort()).toEqual(['message', 'ok']);
  });
});
