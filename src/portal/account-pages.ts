import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { validationError } from '../http/api-error.js';
import { checkBody } from '../http/validators.js';
import type { ClientsStore } from '../clients/clients.store.js';
import { getPlan } from '../clients/plans.js';
import { dailyQuotaOf } from '../access/rate-limiter.js';
import type { UsageTally } from '../clients/usage-tally.js';
import { normalizeProfile, Profile } from '../clients/profile.js';
import { apiKeyDetails, MAX_API_KEYS, type ApiKeysService } from '../api-keys/api-keys.service.js';
import { checkSyncSettings, effectiveSyncSettings, type SyncSetting } from '../syncs/sync-settings.js';
import { clientSyncSettings, saveClientSyncSettings } from '../syncs/sync-settings.store.js';
import { MAX_WEBHOOK_CONSUMERS, type WebhooksService } from '../webhooks/webhooks.service.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { buttonForm, chart, csrfField, h, portalPage, sendPortalPage, table, when, type Notice } from './portal-layout.js';
import { sessionOf } from './portal-session.js';
import { doneNotice, formOf, pageContext } from './portal-request.js';
import { formatDate } from './portal-format.js';
import { clockFor } from '../lib/clock.js';

export interface AccountPagesDeps {
  db: Kysely<Database>;
  clients: ClientsStore;
  apiKeys: ApiKeysService;
  usage: UsageTally;
  companies: CompaniesService;
  webhooks: WebhooksService;
}

/** Hours the usage chart covers. */
const USAGE_HOURS = 48;

const DONE: Record<string, Notice> = {
  profile: { kind: 'success', text: 'Profile saved.' },
  sync: { kind: 'success', text: 'Sync settings saved.' },
  revoked: { kind: 'success', text: 'Key revoked: requests with it now answer 401, and portal sessions signed in with it have ended.' },
};

const invalid = (itemId: string, message: string, validatorName: string) =>
  validationError('ValidationException: One or more validation errors occurred.', [{ itemId, message, validatorName }]);

/** The profile and default sync settings; API keys, usage against the plan's limits, and requests per hour. */
export function registerAccountPages(scope: FastifyInstance, deps: AccountPagesDeps): void {
  const config = { public: true };

  scope.get('/settings', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const { client } = sessionOf(request);
    const profile = JSON.parse((await deps.clients.getProfile(client.id)) ?? '{}') as Partial<Profile>;
    const settings = effectiveSyncSettings(await clientSyncSettings(deps.db, client.id));
    const field = (id: keyof Profile, label: string, hint: string, value: string | undefined, required = false) =>
      `<div class="field"><label for="${id}">${h(label)}</label><input id="${id}" name="${id}" value="${h(value ?? '')}"${required ? ' required' : ''} maxlength="2000" aria-describedby="${id}-hint"><span id="${id}-hint" class="hint">${hint}</span></div>`;
    const rows = settings.map((s) => [
      `<label for="schedule-${h(s.dataType)}">${h(s.dataType)}</label>`,
      `<input id="schedule-${h(s.dataType)}" name="schedule.${h(s.dataType)}" type="number" min="0" max="8760" step="1" value="${s.syncSchedule}" aria-label="${h(`Hours between syncs of ${s.dataType}`)}">`,
      `<input type="checkbox" name="first.${h(s.dataType)}" value="on"${s.fetchOnFirstLink ? ' checked' : ''} aria-label="${h(`Fetch ${s.dataType} on first link`)}">`,
    ]);
    const main = `<section class="card" aria-labelledby="profile-title"><h2 id="profile-title">Profile</h2>
<p>What end users see on the Link page, and where it sends them when they are done.</p>
<form method="post" action="/portal/settings/profile">${csrfField(ctx)}
${field('name', 'Name', 'Shown to end users.', profile.name, true)}
${field('logoUrl', 'Logo address', 'An http(s) address; optional.', profile.logoUrl)}
${field('iconUrl', 'Icon address', 'An http(s) address; optional.', profile.iconUrl)}
${field('redirectUrl', 'Redirect address', 'Where Link ends; may hold <code>{companyId}</code>, <code>{statusCode}</code> and the like. Empty: the built-in finish page.', profile.redirectUrl)}
<div class="field"><label for="whiteListUrls">Allowed redirect addresses</label><textarea id="whiteListUrls" name="whiteListUrls" aria-describedby="whiteListUrls-hint">${h((profile.whiteListUrls ?? []).join('\n'))}</textarea><span id="whiteListUrls-hint" class="hint">One http(s) address a line.</span></div>
<button type="submit">Save profile</button></form></section>
<section class="card" aria-labelledby="sync-title"><h2 id="sync-title">Default sync settings</h2>
<p>Every company follows these unless it has its own. A schedule of 0 hours means no scheduled sync${getPlan(client.plan).allowsHourlySync ? '' : '; hourly (1) is not available on the Free trial'}.</p>
<form method="post" action="/portal/settings/sync">${csrfField(ctx)}
${table('Sync settings', ['Data type', 'Hours between syncs', 'Fetch on first link'], rows, { captionHidden: true })}
<p><button type="submit">Save sync settings</button></p></form></section>`;
    return sendPortalPage(reply, portalPage(ctx, { title: 'Settings', section: 'settings', main, notice: doneNotice(request, DONE) }));
  });

  scope.post('/settings/profile', { config }, async (request, reply) => {
    const form = formOf(request);
    const optional = (name: string) => form.get(name)?.trim() || undefined;
    const candidate = {
      name: form.get('name')?.trim() ?? '',
      redirectUrl: form.get('redirectUrl')?.trim() ?? '',
      ...(optional('logoUrl') ? { logoUrl: optional('logoUrl') } : {}),
      ...(optional('iconUrl') ? { iconUrl: optional('iconUrl') } : {}),
      whiteListUrls: (form.get('whiteListUrls') ?? '')
        .split(/\r?\n/)
        .map((u) => u.trim())
        .filter(Boolean),
    };
    // The API's own schema and messages: the portal accepts exactly what PUT /profile does.
    const profile = checkBody<Profile>(Profile, candidate, 'UpdateProfile');
    await deps.clients.setProfile(sessionOf(request).client.id, JSON.stringify(normalizeProfile(profile)));
    return reply.code(303).redirect('/portal/settings?done=profile');
  });

  scope.post('/settings/sync', { config }, async (request, reply) => {
    const { client } = sessionOf(request);
    const form = formOf(request);
    const stored = await clientSyncSettings(deps.db, client.id);
    const settings: SyncSetting[] = effectiveSyncSettings(stored).map((s) => {
      const raw = form.get(`schedule.${s.dataType}`);
      const schedule = raw === null ? s.syncSchedule : Number(raw);
      if (!Number.isInteger(schedule) || schedule < 0 || schedule > 8760)
        throw invalid(
          `schedule.${s.dataType}`,
          `Hours between syncs of ${s.dataType} must be a whole number from 0 to 8760`,
          'SyncSettings',
        );
      return { ...s, syncSchedule: schedule, fetchOnFirstLink: form.get(`first.${s.dataType}`) === 'on' };
    });
    checkSyncSettings(client.plan, settings);
    await saveClientSyncSettings(deps.db, client.id, { settings, overridesDefaults: stored?.overridesDefaults ?? true });
    return reply.code(303).redirect('/portal/settings?done=sync');
  });

  scope.get('/keys', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const session = sessionOf(request);
    return sendPortalPage(
      reply,
      portalPage(ctx, {
        title: 'API keys and usage',
        section: 'keys',
        main: await keysMain(request, session.apiKeyId),
        notice: doneNotice(request, DONE),
        charts: true,
      }),
    );
  });

  scope.post('/keys', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const session = sessionOf(request);
    const name = formOf(request).get('name')?.trim() || null;
    if (name && name.length > 50) throw invalid('name', 'name must be at most 50 characters', 'CreateApiKey');
    const key = await deps.apiKeys.create(session.client.id, { name });
    // Shown in this answer only (no redirect): the key is in no address, history entry or cookie.
    const created = `<section class="card" aria-labelledby="new-key-title"><h2 id="new-key-title">New key${name ? `: ${h(name)}` : ''}</h2>
<p>Copy it now: it is shown only this once, and only its hash is kept.</p>
<div class="field"><label for="new-key">API key</label><input id="new-key" class="secret" readonly value="${h(key.apiKey)}"></div></section>`;
    const main = created + (await keysMain(request, session.apiKeyId));
    return sendPortalPage(
      reply,
      portalPage(ctx, {
        title: 'API keys and usage',
        section: 'keys',
        main,
        notice: { kind: 'success', text: 'Key created.' },
        charts: true,
      }),
      201,
    );
  });

  scope.post<{ Params: { keyId: string } }>('/keys/:keyId/revoke', { config }, async (request, reply) => {
    const session = sessionOf(request);
    await deps.apiKeys.delete(session.client.id, request.params.keyId);
    // Revoking the key this session signed in with ends the session too.
    if (request.params.keyId === session.apiKeyId) return reply.code(303).redirect('/portal/sign-in');
    return reply.code(303).redirect('/portal/keys?done=revoked');
  });

  scope.get('/api/usage', { config }, async (request) => {
    const hours = await deps.usage.recent(sessionOf(request).client.id, USAGE_HOURS);
    return {
      type: 'bar',
      valueTitle: 'requests',
      labels: hours.map((u) => formatDate(`${u.hour}:00:00Z`, { time: 'always' }) ?? u.hour),
      // A time axis named at midnight (the day) and noon, so that the names fit a phone's width unskipped.
      tickLabels: hours.map((u) => {
        const hour = Number(u.hour.slice(11, 13));
        if (hour === 0) return formatDate(u.hour.slice(0, 10))!.replace(/ \d{4}$/, '');
        return hour === 12 ? '12:00' : '';
      }),
      datasets: [
        { label: 'Requests', data: hours.map((u) => u.requests) },
        { label: 'Refused (429)', data: hours.map((u) => u.refusals) },
      ],
    };
  });

  async function keysMain(request: FastifyRequest, currentKeyId: string): Promise<string> {
    const ctx = pageContext(request);
    const { client } = sessionOf(request);
    const [keys, companies, consumers, quota, hours, linked] = await Promise.all([
      deps.apiKeys.list(client.id),
      deps.companies.list(client, { page: 1, pageSize: 1 }),
      deps.webhooks.list(client.id),
      dailyQuotaOf(deps.clients, client),
      deps.usage.recent(client.id, USAGE_HOURS),
      deps.clients.countLinkedCompanies(client.id),
    ]);
    const plan = getPlan(client.plan);
    const today = clockFor({ clientId: client.id }).now().toISOString().slice(0, 10);
    const usedToday = hours.filter((u) => u.hour.startsWith(today)).reduce((sum, u) => sum + u.requests, 0);
    const keyRows = keys
      .map(apiKeyDetails)
      .map((k) => [
        h(k.name ?? '(no name)'),
        `<code>${h(k.id)}</code>`,
        when(k.createdDate),
        k.expiresAt ? when(k.expiresAt) : 'Never',
        `${k.id === currentKeyId ? '<span class="hint">This session’s key (revoking it signs you out)</span> ' : ''}${buttonForm(ctx, `/portal/keys/${h(k.id)}/revoke`, 'Revoke', { danger: true, name: k.name ?? k.id })}`,
      ]);
    const limit = (n: number | undefined) => (n === undefined ? 'no limit' : n.toLocaleString('en-GB'));
    const usageRows = [
      ['Plan', h(plan.name), ''],
      ['Companies', String(companies.totalResults), limit(plan.maxCompanies)],
      ['Companies with a linked connection', String(linked), ''],
      ['Requests today (UTC)', usedToday.toLocaleString('en-GB'), limit(quota)],
      ['Requests per second', '', client.burstLimit === null ? 'no limit' : String(client.burstLimit)],
      ['API keys', String(keys.length), String(MAX_API_KEYS)],
      ['Webhook consumers', String(consumers.length), String(MAX_WEBHOOK_CONSUMERS)],
    ].map(([what, used, max]) => [h(what), used, max]);
    const hourRows = hours
      .filter((u) => u.requests > 0)
      .map((u) => [h(u.hour.replace('T', ' ') + ':00 UTC'), String(u.requests), String(u.refusals)]);
    return `<section class="card" aria-labelledby="keys-title"><h2 id="keys-title">API keys</h2>
${table('API keys', ['Name', 'Id', 'Created', 'Expires', 'Actions'], keyRows, { captionHidden: true })}
<form method="post" action="/portal/keys" class="row">${csrfField(ctx)}
<div class="field"><label for="key-name">Name of a new key (optional)</label><input id="key-name" name="name" maxlength="50"></div>
<button type="submit">Create key</button></form></section>
<section class="card" aria-labelledby="usage-title"><h2 id="usage-title">Usage and limits</h2>
${table('Usage against the plan', ['', 'Used', 'Limit'], usageRows, { captionHidden: true })}</section>
${chart({ id: 'requests-per-hour', title: `API requests and refusals per hour (last ${USAGE_HOURS} hours)`, src: '/portal/api/usage', table: table('Requests per hour', ['Hour', 'Requests', 'Refused (429)'], hourRows) })}`;
  }
}
