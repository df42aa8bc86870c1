import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { ConsoleTokens } from '../config.js';
import { isSharedName, type ConsoleRole } from '../config-console.js';
import type { AtRest } from '../config-at-rest.js';
import type { OnRefused, RefusalReason } from '../at-rest/refusals.js';
import { openStoredValue, type StoredValue } from '../at-rest/stored-values.js';

/**
 * Console access: a token is exchanged once for a session cookie (HttpOnly, SameSite=Strict,
 * path /console). Two roles: read-only looks, operator may also reveal and redrive. Each token
 * has a name (config-console.ts), the session's actor, which audit events record.
 *
 * Sessions are kept in Redis when there is one (a restart or another replica keeps them): one
 * expiring key per session, named by a hash of its id and holding the role and the actor's
 * name, never a token nor the id itself (whoever reads Redis cannot take a session over).
 * With encryption at rest the value is sealed with the service's key, its Redis key as
 * associated data: whoever writes to Redis cannot make a session either (a value in clear, one
 * moved under another session's key or sealed with other bytes is no session; counted, logged
 * without the name, dropped). Without Redis they live in this process, and a restart logs
 * everyone out.
 */
export type Role = ConsoleRole;

export interface Identity {
  role: Role;
  /** The token's name; never the token. */
  actor: string;
}

export const SESSION_COOKIE = 'vg_console';
export const SESSION_TTL_MS = 8 * 3600 * 1000;

export interface Sessions {
  /** Who a token is, or undefined for a wrong token. */
  identify(token: string): Identity | undefined;
  open(identity: Identity): Promise<string>;
  get(id: string | undefined): Promise<Identity | undefined>;
  close(id: string | undefined): Promise<void>;
}

/** Where open sessions are kept, by a hash of their id. */
export interface SessionStore {
  put(hash: string, identity: Identity, ttlMs: number): Promise<void>;
  get(hash: string): Promise<Identity | undefined>;
  delete(hash: string): Promise<void>;
}

export function createSessions(tokens: ConsoleTokens, store: SessionStore): Sessions {
  return {
    identify(token) {
      // Every token compared, so the time taken does not tell which one matched.
      let found: Identity | undefined;
      for (const named of tokens.tokens) {
        if (sameSecret(token, named.token) && found === undefined)
          found = { role: named.role, actor: named.name };
      }
      return found;
    },
    async open(identity) {
      const id = randomBytes(32).toString('base64url');
      await store.put(sessionHash(id), identity, SESSION_TTL_MS);
      return id;
    },
    async get(id) {
      if (id === undefined || id === '') return undefined;
      const identity = await store.get(sessionHash(id));
      // Opened with a shared token before named tokens were required: it no longer opens.
      if (identity && tokens.namedOnly === true && isSharedName(identity.actor)) return undefined;
      return identity;
    },
    async close(id) {
      if (id !== undefined && id !== '') await store.delete(sessionHash(id));
    },
  };
}

function sessionHash(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

export function memorySessionStore(now: () => Date): SessionStore {
  const open = new Map<string, Identity & { expiresAt: number }>();
  return {
    put(hash, identity, ttlMs) {
      open.set(hash, { ...identity, expiresAt: now().getTime() + ttlMs });
      return Promise.resolve();
    },
    get(hash) {
      const session = open.get(hash);
      if (!session) return Promise.resolve(undefined);
      if (session.expiresAt <= now().getTime()) {
        open.delete(hash);
        return Promise.resolve(undefined);
      }
      return Promise.resolve({ role: session.role, actor: session.actor });
    },
    delete(hash) {
      open.delete(hash);
      return Promise.resolve();
    },
  };
}

export interface SessionSealing {
  /** Absent: ALLOW_PLAINTEXT_REDIS, sessions in clear as before. */
  atRest?: AtRest | undefined;
  /** A stored session this service did not seal and write: no session. */
  onRefused?: OnRefused | undefined;
}

export function redisSessionStore(redis: Redis, prefix: string, sealing: SessionSealing = {}): SessionStore {
  const key = (hash: string): string => `${prefix}:console:session:${hash}`;
  const cipher = sealing.atRest?.cipher;
  return {
    async put(hash, identity, ttlMs) {
      const json = JSON.stringify({ role: identity.role, actor: identity.actor });
      await redis.set(key(hash), cipher ? cipher.seal(json, key(hash)) : json, 'PX', ttlMs);
    },
    async get(hash) {
      const stored = await redis.getBuffer(key(hash));
      if (stored === null) return undefined;
      const read = readSession(stored, key(hash), sealing.atRest);
      if ('identity' in read) return read.identity;
      sealing.onRefused?.(read.refused);
      await redis.del(key(hash));
      return undefined;
    },
    async delete(hash) {
      await redis.del(key(hash));
    },
  };
}

function readSession(
  stored: Buffer,
  context: string,
  atRest: AtRest | undefined,
): { identity: Identity } | { refused: RefusalReason } {
  let opened: StoredValue;
  try {
    // No migration window for sessions (REDIS_CLEAR_VALUES_UNTIL): with the keys, one in
    // clear is refused at once; an upgrade logs everyone out once.
    opened = openStoredValue(atRest && { cipher: atRest.cipher, index: atRest.index }, stored, context);
  } catch {
    // A key id the ring does not list, or a sealed value without keys.
    return { refused: 'unopenable' };
  }
  if ('refused' in opened) return opened;
  let parsed: Partial<Identity> | null;
  try {
    parsed = JSON.parse(opened.plain.toString('utf8')) as Partial<Identity> | null;
  } catch {
    return { refused: 'malformed' };
  }
  const role = parsed?.role === 'operator' || parsed?.role === 'read-only' ? parsed.role : undefined;
  if (role === undefined || typeof parsed?.actor !== 'string') return { refused: 'malformed' };
  return { identity: { role, actor: parsed.actor } };
}

/** Compared as digests: equal lengths for timingSafeEqual, and no early exit on length. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleRole?: Role;
    consoleActor?: string;
  }
}

export function roleOf(request: FastifyRequest): Role {
  return request.consoleRole ?? 'read-only';
}

/** Who the session is, for audit events. */
export function actorOf(request: FastifyRequest): string {
  return request.consoleActor ?? 'unknown';
}

/** Operator-only actions: a read-only session gets 403. */
export async function requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.consoleRole !== 'operator') {
    await reply.code(403).type('text/plain').send('forbidden: this action needs the operator token');
  }
}
