/**
 * Which stack the integration tests run against (test/global-setup.ts), as a function of what
 * the run can see, so the order can be tested without a Docker engine:
 *
 *   1. KAFKA_BROKERS, SCHEMA_REGISTRY_URL and REDIS_URL in the environment, whatever else;
 *   2. TEST_STACK=local or TEST_STACK=docker, when set;
 *   3. the local stack when it already runs (.ci/run and `npm run stack:up` start it before the
 *      tests: a Docker engine on the same machine must not take the run elsewhere);
 *   4. testcontainers when a Docker engine answers and has, or can pull, every image;
 *   5. else the local stack, with the reason when Docker answered.
 */
export type StackMode = 'auto' | 'docker' | 'local';

export interface StackFacts {
  mode: StackMode;
  /** All three endpoints are set in the environment. */
  endpointsInEnvironment: boolean;
  /** stack/up.sh's processes are alive (pid files under the stack directory). */
  localStackRunning: () => boolean;
  /** A Docker engine answers /_ping. */
  dockerAnswers: () => Promise<boolean>;
  /** Why an image the containers need can be neither found nor pulled; undefined when all can. */
  missingImage: () => Promise<string | undefined>;
}

export type StackChoice =
  { stack: 'environment' } | { stack: 'docker' } | { stack: 'local'; why: string; say: boolean };

export function parseStackMode(value: string | undefined): StackMode {
  const mode = value === undefined || value === '' ? 'auto' : value;
  if (mode !== 'auto' && mode !== 'docker' && mode !== 'local') {
    throw new Error(`TEST_STACK must be auto, docker or local (got ${mode})`);
  }
  return mode;
}

export async function chooseStack(facts: StackFacts): Promise<StackChoice> {
  if (facts.endpointsInEnvironment) return { stack: 'environment' };
  if (facts.mode === 'local') return { stack: 'local', why: 'TEST_STACK=local', say: false };
  if (facts.mode === 'docker') return { stack: 'docker' };
  if (facts.localStackRunning()) {
    return { stack: 'local', why: 'the local stack is already running', say: false };
  }
  if (!(await facts.dockerAnswers())) {
    return { stack: 'local', why: 'no Docker engine answers', say: false };
  }
  const missing = await facts.missingImage();
  if (missing !== undefined) {
    return {
      stack: 'local',
      why: `Docker answers but ${missing} (scripts/images.sh builds the images locally)`,
      say: true,
    };
  }
  return { stack: 'docker' };
}
