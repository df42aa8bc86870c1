import { describe, expect, it } from 'vitest';
import { forgetOldJobs, type Job } from '../../../src/console/redrive.js';

const job = (id: string, state: Job['state']): [string, Job] => [id, { id, state, lines: [] }];

describe('redrive jobs kept on view', () => {
  it('drops the oldest finished ones past twenty, never a running one', () => {
    const jobs = new Map<string, Job>([
      job('running-first', 'running'),
      ...Array.from({ length: 21 }, (_, i) => job(`done-${i}`, i % 2 === 0 ? 'done' : 'failed')),
    ]);
    forgetOldJobs(jobs);
    expect(jobs.size).toBe(20);
    expect(jobs.has('running-first')).toBe(true);
    expect(jobs.has('done-0')).toBe(false);
    expect(jobs.has('done-1')).toBe(false);
    expect(jobs.has('done-2')).toBe(true);
    expect(jobs.has('done-20')).toBe(true);
  });

  it('keeps everything up to twenty', () => {
    const jobs = new Map<string, Job>(Array.from({ length: 20 }, (_, i) => job(`done-${i}`, 'done')));
    forgetOldJobs(jobs);
    expect(jobs.size).toBe(20);
  });
});
