import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import { ApiError } from '../http/api-error.js';
import { secretsEqual } from '../lib/constant-time.js';
import { sendError, toApiError, type DocsUrl } from '../http/error-handler.js';
import { portalAssets } from './portal-assets.js';
import { h, plainPage, sendPortalPage } from './portal-layout.js';
import { formOf } from './portal-request.js';
import {
  cookieOptions,
  forbidden,
  newToken,
  redirectToSignIn,
  safeNext,
  SESSION_COOKIE,
  SESSION_HOURS,
  SIGN_IN_COOKIE,
  wantsJson,
  type PortalSessions,
} from './portal-session.js';
import { registerCompanyPages, type CompanyPagesDeps } from './company-pages.js';
import { registerWebhookPages, type WebhookPagesDeps } from './webhook-pages.js';
import { registerAccountPages, type AccountPagesDeps } from './account-pages.js';
import { registerDataPages } from './data-pages.js';
import { registerStatementPages } from './statement-pages.js';
import { registerCompanyCharts } from './company-charts.js';
import { sendErrorPage } from './error-page.js';
import { createSignInLimit } from './sign-in-limit.js';
import type { RateCounters } from '../access/rate-counters.js';

/** Forms are small: an API key, a company name, a profile. */
const FORM_BODY_LIMIT = 64 * 1024;

export interface PortalDeps extends CompanyPagesDeps, WebhookPagesDeps, AccountPagesDeps {
  sessions: PortalSessions;
  /** The API's rate counters: sign-in attempts are counted there too. */
  rateCounters: RateCounters;
  docsUrl: DocsUrl;
  publicUrl(): string;
}

/**
 * The client portal under /portal: server-rendered pages and plain forms for a client's developers, signed in with
 * an API key that becomes a session (docs/portal.md). Its own scope: form bodies, the session and CSRF checks and
 * HTML error pages apply here only; the API keeps JSON and API keys.
 */
export function registerPortalRoutes(app: FastifyInstance, deps: PortalDeps): void {
  void app.register(async (scope) => portalScope(scope, deps), { prefix: '/portal' });
}

async function portalScope(scope: FastifyInstance, deps: PortalDeps): Promise<void> {
  // Pages for people, not the API: kept out of /openapi.json, which describes what the SDKs and API clients call.
  scope.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // A parameter given twice (`?query=a&query=b`) arrives as an array, which every page reads as one string: the
  // first one counts, as a browser's form only ever sends one.
  scope.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query) return;
    for (const [name, value] of Object.entries(query)) if (Array.isArray(value)) query[name] = value[0];
  });
  await scope.register(cookie);
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );
  const secure = () => deps.publicUrl().startsWith('https:');
  const signInLimit = createSignInLimit(deps.rateCounters);

  scope.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(err, request);
    if (apiError.statusCode >= 500 && !(err instanceof ApiError)) request.log.error({ err }, 'portal request failed');
    if (wantsJson(request)) return sendError(reply, request, apiError, deps.docsUrl);
    return sendErrorPage(request, reply, apiError);
  });

  // Every route but sign-in and the assets needs a live session; every POST a matching CSRF token.
  scope.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config?.portalPublic) return;
    const session = await deps.sessions.resolve(request.cookies[SESSION_COOKIE]);
    if (!session) {
      if ((request.method === 'GET' || request.method === 'HEAD') && !wantsJson(request)) return redirectToSignIn(request, reply);
      throw forbidden('sign in to the portal first; this request has no live session.');
    }
    request.portalSession = session;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const sent = formOf(request).get('_csrf') ?? (request.headers['x-csrf-token'] as string | undefined);
      if (!secretsEqual(sent, session.csrfToken))
        throw forbidden('the form is stale or was not sent by the portal (CSRF token mismatch); reload the page and try again.');
    }
  });

  const publicRoute = { config: { public: true, portalPublic: true } };
  const sessionRoute = { config: { public: true } };

  for (const asset of Object.values(portalAssets())) {
    scope.get(`/assets/${asset.name}`, publicRoute, async (_request, reply) =>
      reply
        .headers({
          'Content-Type': asset.contentType,
          'Cache-Control': 'public, max-age=31536000, immutable',
          'X-Content-Type-Options': 'nosniff',
        })
        .send(asset.body),
    );
  }

  scope.get('/', sessionRoute, async (_request, reply) => reply.code(303).redirect('/portal/companies'));

  scope.get<{ Querystring: { next?: string } }>('/sign-in', publicRoute, async (request, reply) => {
    const existing = await deps.sessions.resolve(request.cookies[SESSION_COOKIE]);
    if (existing) return reply.code(303).redirect(safeNext(request.query.next));
    return signInPage(reply, safeNext(request.query.next), secure());
  });

  scope.post('/sign-in', publicRoute, async (request, reply) => {
    const form = formOf(request);
    const next = safeNext(form.get('next'));
    // Login CSRF: the form's token must match the cookie set with the form (a page elsewhere cannot read it).
    if (!request.cookies[SIGN_IN_COOKIE] || !secretsEqual(form.get('_csrf'), request.cookies[SIGN_IN_COOKIE]))
      throw forbidden('the sign-in form is stale or was not sent by the portal (CSRF token mismatch); reload the page and try again.');
    // Counted before the key is looked at: past the limit, no key is checked at all, right or wrong.
    const limited = await signInLimit.attempt(request.ip);
    if (limited) {
      reply.header('Retry-After', String(limited.retryAfter));
      return signInPage(reply, next, secure(), {
        status: 429,
        error: `Too many sign-in attempts from your address; try again in ${limited.retryAfter} s.`,
      });
    }
    const apiKey = form.get('apiKey')?.trim() ?? '';
    if (!apiKey) return signInPage(reply, next, secure(), { status: 400, error: 'Enter an API key.' });
    try {
      const { token } = await deps.sessions.signIn(apiKey);
      reply.clearCookie(SIGN_IN_COOKIE, { path: '/portal/sign-in' });
      reply.setCookie(SESSION_COOKIE, token, cookieOptions(secure(), '/portal', SESSION_HOURS * 3600));
      return reply.code(303).header('Cache-Control', 'no-store').redirect(next);
    } catch (err) {
      // A refused key is said on the form, to try another; anything else is the scope's error page.
      if (err instanceof ApiError && err.statusCode < 500)
        return signInPage(reply, next, secure(), { status: err.statusCode, error: err.message });
      throw err;
    }
  });

  scope.post('/sign-out', sessionRoute, async (request, reply) => {
    await deps.sessions.signOut(request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/portal' });
    return reply.code(303).redirect('/portal/sign-in');
  });

  registerCompanyPages(scope, deps);
  registerDataPages(scope, deps);
  registerStatementPages(scope, deps);
  registerCompanyCharts(scope, deps);
  registerWebhookPages(scope, deps);
  registerAccountPages(scope, deps);

  scope.setNotFoundHandler((request, reply) => {
    const error = new ApiError(404, 'NotFound: There is no portal page at this address.');
    if (wantsJson(request)) return sendError(reply, request, error, deps.docsUrl);
    return sendErrorPage(request, reply, error);
  });
}

function signInPage(reply: FastifyReply, next: string, secure: boolean, options: { status?: number; error?: string } = {}) {
  const csrf = newToken();
  reply.setCookie(SIGN_IN_COOKIE, csrf, cookieOptions(secure, '/portal/sign-in', 3600));
  const main = `<p>Sign in with one of your client's API keys. The key is checked once and not kept in the browser: a session cookie stands for it, and ends when the key is revoked.</p>
<form method="post" action="/portal/sign-in" class="card">
<input type="hidden" name="_csrf" value="${h(csrf)}">
<input type="hidden" name="next" value="${h(next)}">
<div class="field"><label for="apiKey">API key</label>
<input id="apiKey" name="apiKey" type="password" autocomplete="off" required spellcheck="false" aria-describedby="apiKey-hint">
<span id="apiKey-hint" class="hint">As printed by <code>ledgerport clients create</code> or on the first start.</span></div>
<button type="submit">Sign in</button>
</form>`;
  return sendPortalPage(
    reply,
    plainPage({
      title: 'Sign in to the Ledgerport portal',
      main,
      notice: options.error ? { kind: 'error', text: options.error } : undefined,
    }),
    options.status ?? 200,
  );
}
