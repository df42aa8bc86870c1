import type { Redis } from 'ioredis';
import { ConfigError } from '../errors.js';
import { isSealed, sealedKeyId, type DataCipher } from './cipher.js';

/**
 * Start-up's proof that each key's bytes are the ones its id sealed with before. A key id names
 * a key in every sealed value; given other bytes under a known id (a key made again, another
 * deployment's file), the service would start, then fail on the first value the old bytes
 * sealed, over and over. So the first replica that seals with a key id stores a check value
 * sealed with it (`{prefix}:at-rest:check:<key id>`, a constant text, no personal data, no key
 * material), and every start opens the check value of each key it lists: one that does not
 * open stops start-up with a ConfigError naming the setting and the key id.
 */
const CHECK_TEXT = 'verification-gateway: at-rest key check, version 1';

export function keyCheckKey(topicPrefix: string, keyId: string): string {
  return `${topicPrefix}:at-rest:check:${keyId}`;
}

export interface KeyCheckDeps {
  redis: Redis;
  topicPrefix: string;
  cipher: DataCipher;
}

export async function checkKeyMaterial(deps: KeyCheckDeps): Promise<void> {
  const { redis, topicPrefix, cipher } = deps;
  const current = keyCheckKey(topicPrefix, cipher.currentKeyId);
  // NX: replicas starting together with different bytes under one id write one check value,
  // and all but its writer's bytes fail to open it below.
  await redis.set(current, cipher.seal(CHECK_TEXT, current), 'NX');
  for (const id of cipher.keyIds) {
    const key = keyCheckKey(topicPrefix, id);
    const stored = await redis.getBuffer(key);
    // A key listed but never sealed with: nothing of its bytes to contradict yet.
    if (stored === null) continue;
    if (!opensAs(cipher, stored, key, id)) {
      throw new ConfigError(
        cipher.setting,
        `key id "${id}" is not the key that sealed under that id before (its check value in Redis, ${key}, does not open): give that id its earlier key, or put a new key under a new id`,
      );
    }
  }
}

function opensAs(cipher: DataCipher, stored: Buffer, context: string, id: string): boolean {
  try {
    return (
      isSealed(stored) &&
      sealedKeyId(stored) === id &&
      cipher.open(stored, context).toString('utf8') === CHECK_TEXT
    );
  } catch {
    return false;
  }
}
