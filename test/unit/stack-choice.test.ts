import { describe, expect, it } from 'vitest';
import { chooseStack, parseStackMode, type StackFacts } from '../helpers/stack-choice.js';

// Which stack the integration tests use (test/global-setup.ts). The defect this pins: with a
// Docker engine answering, a run chose testcontainers and failed on the first pull although
// .ci/run had just started the local stack.
function facts(over: Partial<StackFacts> = {}): StackFacts & { asked: string[] } {
  const asked: string[] = [];
  return {
    mode: 'auto',
    endpointsInEnvironment: false,
    localStackRunning: () => (asked.push('local'), false),
    dockerAnswers: () => (asked.push('docker'), Promise.resolve(true)),
    missingImage: () => (asked.push('images'), Promise.resolve(undefined)),
    ...over,
    asked,
  };
}

describe('the stack choice of the integration tests', () => {
  it('takes endpoints from the environment over everything else, TEST_STACK=docker included', async () => {
    for (const mode of ['auto', 'docker', 'local'] as const) {
      const f = facts({ mode, endpointsInEnvironment: true, localStackRunning: () => true });
      expect(await chooseStack(f)).toEqual({ stack: 'environment' });
      expect(f.asked).toEqual([]);
    }
  });

  it('uses a running local stack even when Docker answers, without asking Docker', async () => {
    const f = facts({ localStackRunning: () => true });
    expect(await chooseStack(f)).toMatchObject({ stack: 'local', say: false });
    expect(f.asked).toEqual([]);
  });

  it('uses testcontainers when Docker answers and has the images', async () => {
    const f = facts();
    expect(await chooseStack(f)).toEqual({ stack: 'docker' });
    expect(f.asked).toEqual(['local', 'docker', 'images']);
  });

  it('falls back to the local stack, saying why, when an image cannot be had', async () => {
    const why = 'image redis:7-bookworm is not present and cannot be pulled (no answer)';
    const choice = await chooseStack(facts({ missingImage: () => Promise.resolve(why) }));
    expect(choice).toMatchObject({ stack: 'local', say: true });
    expect(choice.stack === 'local' && choice.why).toContain(why);
  });

  it('starts the local stack quietly when no Docker engine answers', async () => {
    const f = facts({ dockerAnswers: () => Promise.resolve(false) });
    expect(await chooseStack(f)).toMatchObject({ stack: 'local', say: false });
  });

  it('obeys TEST_STACK=docker and TEST_STACK=local over a running stack or a missing engine', async () => {
    const running = { localStackRunning: () => true, dockerAnswers: () => Promise.resolve(false) };
    expect(await chooseStack(facts({ ...running, mode: 'docker' }))).toEqual({ stack: 'docker' });
    expect(await chooseStack(facts({ mode: 'local' }))).toMatchObject({ stack: 'local' });
  });

  it('refuses an unknown TEST_STACK, naming it', () => {
    expect(parseStackMode(undefined)).toBe('auto');
    expect(parseStackMode('')).toBe('auto');
    expect(parseStackMode('docker')).toBe('docker');
    expect(() => parseStackMode('podman')).toThrow(/TEST_STACK must be auto, docker or local \(got podman\)/);
  });
});
