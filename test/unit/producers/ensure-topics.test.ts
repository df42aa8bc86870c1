import type { Admin, ITopicConfig } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { ensureTopics } from '../../../src/producers/topic-setup.js';

const wanted: ITopicConfig[] = [{ topic: 'a' }, { topic: 'b' }];

/** An admin whose createTopics fails `failures` times, then creates what it is asked for. */
function fakeAdmin(failures: number, existing: string[] = []) {
  const topics = new Set(existing);
  let left = failures;
  const creates: string[][] = [];
  const admin = {
    listTopics: () => Promise.resolve([...topics]),
    createTopics: ({ topics: asked }: { topics: ITopicConfig[] }) => {
      creates.push(asked.map((t) => t.topic));
      if (left-- > 0) {
        // A racing replica created one of them meanwhile, then the broker refused ours.
        if (asked[0]) topics.add(asked[0].topic);
        return Promise.reject(new Error('UNKNOWN_TOPIC_OR_PARTITION'));
      }
      for (const t of asked) topics.add(t.topic);
      return Promise.resolve(true);
    },
  } as unknown as Admin;
  return { admin, creates };
}

describe('ensureTopics', () => {
  it('tries again against a fresh topic list, asking only for what is still missing', async () => {
    const { admin, creates } = fakeAdmin(1);
    expect(await ensureTopics(admin, wanted)).toEqual(['b']);
    expect(creates).toEqual([['a', 'b'], ['b']]);
  });

  it('creates nothing when every topic exists', async () => {
    const { admin, creates } = fakeAdmin(0, ['a', 'b']);
    expect(await ensureTopics(admin, wanted)).toEqual([]);
    expect(creates).toEqual([]);
  });

  it('gives up after its attempts with the last failure', async () => {
    const { admin, creates } = fakeAdmin(10);
    await expect(
      ensureTopics(admin, [{ topic: 'x' }, { topic: 'y' }, { topic: 'z' }], { attempts: 2 }),
    ).rejects.toThrow('UNKNOWN_TOPIC_OR_PARTITION');
    expect(creates).toHaveLength(2);
  });

  it('stops waiting to try again once its signal aborts (shutdown)', async () => {
    const { admin, creates } = fakeAdmin(10);
    const shutdown = new AbortController();
    const ensuring = ensureTopics(admin, [{ topic: 'x' }, { topic: 'y' }], { signal: shutdown.signal });
    shutdown.abort(new Error('closing'));
    await expect(ensuring).rejects.toThrow();
    const made = creates.length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(creates).toHaveLength(made);
  });
});
