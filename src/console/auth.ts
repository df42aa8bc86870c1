import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleTokens } from '../config.js';

/**
 * Console access: a token is exchanged once for a session cookie (HttpOnly, SameSite=Strict,
 * path /console). Sessions live in this process; a restart logs everyone out, which an admin
 * listener can afford. Two roles: read-only looks, operator may also reveal and redrive.
 */
export type Role = 'read-only' | 'operator';

export const SESSION_COOKIE = 'vg_console';
const SESSION_TTL_MS = 8 * 3600 * 1000;

export interface Sessions {
  /** The role a token grants, or undefined for a wrong token. */
  roleOf(token: string): Role | undefined;
  open(role: Role): string;
  get(id: string | undefined): Role | undefined;
  close(id: string | undefined): void;
}

export function createSessions(tokens: ConsoleTokens, now: () => Date): Sessions {
  const open = new Map<string, { role: Role; expiresAt: number }>();
  return {
    roleOf(token) {
      if (tokens.operator !== undefined && sameSecret(token, tokens.operator)) return 'operator';
      return sameSecret(token, tokens.readOnly) ? 'read-only' : undefined;
    },
    open(role) {
      const id = randomBytes(32).toString('base64url');
      open.set(id, { role, expiresAt: now().getTime() + SESSION_TTL_MS });
      return id;
    },
    get(id) {
      if (id === undefined) return undefined;
      const session = open.get(id);
      if (!session) return undefined;
      if (session.expiresAt <= now().getTime()) {
        open.delete(id);
        return undefined;
      }
      return session.role;
    },
    close(id) {
      if (id !== undefined) open.delete(id);
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
  }
}

export function roleOf(request: FastifyRequest): Role {
  return request.consoleRole ?? 'read-only';
}

/** Operator-only actions: a read-only session gets 403. */
export async function requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.consoleRole !== 'operator') {
    await reply.code(403).type('text/plain').send('forbidden: this action needs the operator token');
  }
}
