import { createHash, createSecretKey, type KeyObject } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ConsoleTokens } from '../config.js';
import type { AtRest } from '../config-at-rest.js';
import { reportRefusals, type RefusalReason, type RefusedValueStore } from '../at-rest/refusals.js';
import { isSharedName } from '../config-console.js';
import type { AuditContext } from '../audit/scan.js';
import type { AuditLog } from '../audit/audit-log.js';
import {
  SESSION_COOKIE,
  SESSION_TTL_MS,
  createSessions,
  memorySessionStore,
  redisSessionStore,
  roleOf,
  type Sessions,
} from './auth.js';
import { registerAssets } from './assets.js';
import { registerDeadLetters } from './dead-letters.js';
import { createLoginThrottle, type LoginThrottleLimits } from './login-throttle.js';
import { registerRedrive } from './redrive.js';
import { registerStatus, type StatusSource } from './status.js';
import { registerTrail } from './trail.js';

/** What `registerConsole` depends on. */
export interface ConsoleDeps {
  tokens: ConsoleTokens;
  prefix: string;
  /** A context for one read: the audit CLI's clients, opened once by the caller. */
  audit(): AuditContext;
  auditLog: AuditLog;
  status: StatusSource;
  logger: Logger;
  now(): Date;
  /** Mark cookies Secure (CONSOLE_SECURE_COOKIES: the browser reaches the listener over https). */
  secureCookies?: boolean;
  /** Wrong tokens allowed per address and window (login-throttle.ts has the default). */
  loginThrottle?: LoginThrottleLimits;
  /** Sessions and the login throttle are kept there when given (a restart keeps them). */
  redis?: Redis | undefined;
  /** The keys of encryption at rest (absent: ALLOW_PLAINTEXT_REDIS, or no Redis): sessions are sealed with them. */
  atRest?: AtRest | undefined;
  /** Counts the values read back from Redis and refused (the service's metric). */
  countRefused?: (store: RefusedValueStore, reason: RefusalReason) => void;
}

/**
 * Sent with every console response: no page in a frame (clickjacking), no content-type
 * sniffing, and nothing cached (a revealed dead letter must not stay in a browser's or a
 * proxy's cache). Four fixed headers: set here rather than through @fastify/helmet, whose
 * other defaults (a CSP for scripts, among them) the pages would have to be checked against.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export const CONSOLE_PREFIX = '/console';

/**
 * The operator console: server-rendered pages over the audit code (dead letters, trails,
 * redrive) and the replicas' heartbeats (status). Mounted under /console on the admin listener
 * only; every route but login and the static assets needs a session.
 */
export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  await app.register(
    async (scope) => {
      const store = deps.redis
        ? redisSessionStore(deps.redis, deps.prefix, {
            atRest: deps.atRest,
            onRefused: reportRefusals('console-session', deps.logger, deps.countRefused ?? (() => undefined)),
          })
        : memorySessionStore(() => deps.now());
      const sessions = createSessions(deps.tokens, store);
      scope.addHook('onSend', async (_request, reply) => {
        reply.headers(CONSOLE_HEADERS);
      });
      await scope.register(fastifyCookie);
      await scope.register(fastifyFormbody);
      await scope.register(fastifyCsrf, {
        // Each form's token is bound to the session it was made for: another session's CSRF
        // cookie and token are refused. The key is derived from the tokens, so that replicas
        // and restarts agree on it without a setting of its own.
        getUserInfo: (request: FastifyRequest) => request.cookies[SESSION_COOKIE] ?? '',
        csrfOpts: { hmacKey: csrfKey(deps.tokens) },
        cookieKey: 'vg_console_csrf',
        cookieOpts: {
          path: CONSOLE_PREFIX,
          httpOnly: true,
          sameSite: 'strict',
          secure: deps.secureCookies === true,
        },
      });
      await scope.register(fastifyView, {
        engine: { eta: new Eta({ autoEscape: true }) },
        root: fileURLToPath(new URL('./views', import.meta.url)),
        viewExt: 'eta',
      });
      registerAssets(scope);
      registerLogin(scope, sessions, deps);
      scope.addHook('preHandler', async (request, reply) => {
        if (isPublic(request)) return;
        const identity = await sessions.get(request.cookies[SESSION_COOKIE]);
        if (identity === undefined) {
          await reply.code(401).view('login', { error: undefined, csrf: undefined, role: undefined });
          return;
        }
        request.consoleRole = identity.role;
        request.consoleActor = identity.actor;
      });
      scope.get('/', (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/status`, 303));
      registerStatus(scope, deps);
      registerDeadLetters(scope, deps);
      registerTrail(scope, deps);
      registerRedrive(scope, deps);
    },
    { prefix: CONSOLE_PREFIX },
  );
}

function isPublic(request: FastifyRequest): boolean {
  const path = request.routeOptions.url ?? '';
  return path === `${CONSOLE_PREFIX}/login` || path.startsWith(`${CONSOLE_PREFIX}/assets/`);
}

function registerLogin(scope: FastifyInstance, sessions: Sessions, deps: ConsoleDeps): void {
  const cookie = {
    path: CONSOLE_PREFIX,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: deps.secureCookies === true,
  };
  const throttle = createLoginThrottle(
    loginThrottleKey(deps),
    deps.loginThrottle,
    deps.redis ? { redis: deps.redis, prefix: deps.prefix } : undefined,
  );
  scope.get('/login', (_request, reply) => reply.view('login', { error: undefined, role: undefined }));
  scope.post<{ Body: { token?: string } }>('/login', async (request, reply) => {
    // The address is the throttle's key, never logged: an address is personal data.
    const wait = await throttle.retryAfterSeconds(request.ip);
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60);
      return reply
        .code(429)
        .header('retry-after', String(wait))
        .view('login', {
          error: `Too many wrong tokens from your address: try again in ${String(minutes)} minute${minutes === 1 ? '' : 's'}.`,
          role: undefined,
        });
    }
    const identity = sessions.identify(request.body.token ?? '');
    if (identity === undefined) {
      const lockedOut = await throttle.failed(request.ip);
      deps.logger.warn(
        lockedOut
          ? 'console login refused: wrong token, the last one allowed; logins from that address wait'
          : 'console login refused: wrong token',
      );
      return reply.code(401).view('login', { error: 'That token was refused.', role: undefined });
    }
    if (deps.tokens.namedOnly === true && isSharedName(identity.actor)) {
      // A right token, not a guess: the throttle does not count it.
      deps.logger.warn(
        { role: identity.role },
        'console login refused: a shared token, and named tokens are required',
      );
      return reply.code(403).view('login', {
        error: 'Shared tokens are not accepted here: log in with your own token.',
        role: undefined,
      });
    }
    await throttle.succeeded(request.ip);
    await sessions.close(request.cookies[SESSION_COOKIE]);
    reply.setCookie(SESSION_COOKIE, await sessions.open(identity), {
      ...cookie,
      maxAge: SESSION_TTL_MS / 1000,
    });
    deps.logger.info({ role: identity.role }, 'console login');
    return reply.redirect(`${CONSOLE_PREFIX}/status`, 303);
  });
  scope.post('/logout', { preHandler: scope.csrfProtection.bind(scope) }, async (request, reply) => {
    await sessions.close(request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, cookie);
    return reply.redirect(`${CONSOLE_PREFIX}/login`, 303);
  });
}

/** Every page gets the role (what to offer) and a CSRF token (for its forms). */
export function page(
  request: FastifyRequest,
  reply: FastifyReply,
  view: string,
  data: Record<string, unknown>,
): FastifyReply {
  const csrf = reply.generateCsrf({ userInfo: request.cookies[SESSION_COOKIE] ?? '' });
  return reply.view(view, { ...data, role: roleOf(request), csrf });
}

/**
 * The HMAC key of the login throttle's keys: derived from REDIS_INDEX_KEY where Redis is
 * sealed, else from the console tokens; the same on every replica, never stored.
 */
function loginThrottleKey(deps: Pick<ConsoleDeps, 'tokens' | 'atRest'>): KeyObject {
  if (deps.atRest) return deps.atRest.index.deriveKey('console-login-throttle');
  const hash = createHash('sha256').update('console-login-throttle');
  for (const { token } of deps.tokens.tokens) hash.update('\u0000').update(token);
  return createSecretKey(hash.digest());
}

/** The CSRF tokens' HMAC key, from the console tokens: the same on every replica, never stored. */
function csrfKey(tokens: ConsoleDeps['tokens']): string {
  const hash = createHash('sha256').update('console-csrf');
  for (const { token } of tokens.tokens) hash.update('\u0000').update(token);
  return hash.digest('base64url');
}
