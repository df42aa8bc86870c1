import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { Admin, ITopicConfig } from '../../../src/kafka/client.js';
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

/**
 * A broker behind its controller: topics the controller created are listed only after `lag`
 * more topic lists. Asked again for a topic it has, the controller answers TOPIC_ALREADY_EXISTS,
 * which the client's createTopics turns into `false`; it throws on `waitForLeaders`, an option
 * of kafkajs it does not implement.
 */
type CreateTopicsArgs = Parameters<Admin['createTopics']>[0];

function laggingAdmin(lag: number) {
  const committed = new Set<string>();
  const listedAfter = new Map<string, number>();
  let lists = 0;
  const creates: string[][] = [];
  const alreadyExists: string[] = [];
  const listed = () => [...committed].filter((t) => lists > (listedAfter.get(t) ?? 0));
  const admin = {
    listTopics: () => {
      lists += 1;
      return Promise.resolve(listed());
    },
    createTopics: (options: CreateTopicsArgs) => {
      if (Object.hasOwn(options, 'waitForLeaders')) {
        return Promise.reject(
          new KafkaJS.KafkaJSError('waitForLeaders is not yet implemented.', {
            code: KafkaJS.ErrorCodes.ERR__NOT_IMPLEMENTED,
          }),
        );
      }
      const asked = options.topics;
      creates.push(asked.map((t) => t.topic));
      let allCreated = true;
      for (const { topic } of asked) {
        if (committed.has(topic)) {
          alreadyExists.push(topic);
          allCreated = false;
        } else {
          committed.add(topic);
          listedAfter.set(topic, lists + lag);
        }
      }
      return Promise.resolve(allCreated);
    },
  } as unknown as Admin;
  return { admin, creates, alreadyExists, lists: () => lists };
}

describe('ensureTopics', () => {
  it('asks for each topic once and waits until a broker behind its controller lists them', async () => {
    const { admin, creates, alreadyExists, lists } = laggingAdmin(3);
    expect(await ensureTopics(admin, wanted)).toEqual(['a', 'b']);
    expect(creates).toEqual([['a', 'b']]);
    expect(alreadyExists).toEqual([]);
    // The list before the creation, then until both are listed.
    expect(lists()).toBe(1 + 4);
  });

  it('gives up waiting for the list after listedWithinMs', async () => {
    const { admin, creates } = laggingAdmin(1_000_000);
    await expect(ensureTopics(admin, wanted, { listedWithinMs: 200 })).rejects.toThrow(
      'the broker does not list 2 of the topics just created (a, b)',
    );
    expect(creates).toEqual([['a', 'b']]);
  });

  it('stops waiting for the list once its signal aborts (shutdown)', async () => {
    const { admin, lists } = laggingAdmin(1_000_000);
    const shutdown = new AbortController();
    const ensuring = ensureTopics(admin, wanted, { signal: shutdown.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    shutdown.abort(new Error('closing'));
    await expect(ensuring).rejects.toThrow('closing');
    const made = lists();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(lists()).toBe(made);
  });

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
