import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { ConsoleTokens } from '../config.js';
import { isSharedName, type ConsoleRole } from '../config-console.js';

/**
 * Console access: a token is exchanged once for a session cookie (HttpOnly, SameSite=Strict,
 * path /console). Two roles: read-only looks, operator may also reveal and redrive. Each token
 * has a name (config-console.ts), the session's actor, which audit events record.
 *
 * Sessions are kept in Redis when there is one (a restart or another replica keeps them): one
 * expiring key per session, named by a hash of its id and holding the role and the actor's
 * name, never a token nor the id itself (whoever reads Redis cannot take a session over).
 * Without Redis they live in this process, and a restart logs everyone out.
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

export function redisSessionStore(redis: Redis, prefix: string): SessionStore {
  const key = (hash: string): string => `${prefix}:console:session:${hash}`;
  return {
    async put(hash, identity, ttlMs) {
      await redis.set(key(hash), JSON.stringify({ role: identity.role, actor: identity.actor }), 'PX', ttlMs);
    },
    async get(hash) {
      const value = await redis.get(key(hash));
      if (value === null) return undefined;
      const parsed = JSON.parse(value) as Partial<Identity>;
      const role = parsed.role === 'operator' || parsed.role === 'read-only' ? parsed.role : undefined;
      if (role === undefined || typeof parsed.actor !== 'string') return undefined;
      return { role, actor: parsed.actor };
    },
    async delete(hash) {
      await redis.del(key(hash));
    },
  };
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
