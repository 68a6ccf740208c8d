import type { FastifyInstance } from 'fastify';
import type { WebhooksService } from '../webhooks/webhooks.service.js';
import { checkBody } from '../http/validators.js';
import { WebhookConsumerPrototype } from '../webhooks/webhook-consumer.schema.js';
import { buttonForm, csrfField, h, portalPage, sendPortalPage, statusBadge, table, when, type Notice } from './portal-layout.js';
import { sessionOf } from './portal-session.js';
import { doneNotice, formOf, pageContext } from './portal-request.js';
import { chosenEventTypes, eventTypeGroups, shortLabel, type EventTypeGroup } from './event-type-groups.js';

export interface WebhookPagesDeps {
  webhooks: WebhooksService;
}

const DONE: Record<string, Notice> = {
  disabled: { kind: 'success', text: 'Consumer disabled: nothing more is sent to it, and its pending deliveries were dropped.' },
  enabled: { kind: 'success', text: 'Consumer enabled.' },
  deleted: { kind: 'success', text: 'Consumer deleted.' },
  replayed: { kind: 'success', text: 'Delivery replayed: the event is on its way again, as a new delivery.' },
};

/** Webhook consumers: create, disable and enable, delete; their recent deliveries, and replaying one. */
export function registerWebhookPages(scope: FastifyInstance, deps: WebhookPagesDeps): void {
  const config = { public: true };

  scope.get('/webhooks', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const consumers = await deps.webhooks.list(sessionOf(request).client.id);
    const rows = consumers.map((c) => [
      `<a href="/portal/webhooks/${h(c.id)}">${h(c.url)}</a>`,
      statusBadge(c.disabled ? 'disabled' : 'enabled'),
      h(c.eventTypes.join(', ')),
      h(c.companyTags?.join(', ') ?? 'Every company'),
    ]);
    const main = `<section class="card" aria-labelledby="consumers-title"><h2 id="consumers-title">Consumers</h2>
${table('Webhook consumers', ['Address', 'State', 'Event types', 'Companies'], rows, { captionHidden: true })}</section>
<section class="card" aria-labelledby="create-title"><h2 id="create-title">Add a consumer</h2>
<form method="post" action="/portal/webhooks">${csrfField(ctx)}
<div class="field"><label for="url">Address (http or https)</label><input id="url" name="url" type="url" required maxlength="2000"></div>
<fieldset class="event-types" aria-describedby="types-hint"><legend>Event types</legend>
<p id="types-hint" class="hint">Choose one or more.</p>
<div class="event-groups">${eventTypeGroups().map(groupFieldset).join('\n')}</div></fieldset>
<div class="field"><label for="companyTags">Only companies with these tags (optional)</label><input id="companyTags" name="companyTags" aria-describedby="tags-hint">
<span id="tags-hint" class="hint">Comma-separated <code>tagKey:tagValue</code>.</span></div>
<button type="submit">Add consumer</button></form></section>`;
    return sendPortalPage(reply, portalPage(ctx, { title: 'Webhooks', section: 'webhooks', main, notice: doneNotice(request, DONE) }));
  });

  scope.post('/webhooks', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const form = formOf(request);
    const tags = (form.get('companyTags') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    // The API's own body schema (POST /webhooks), then the service's checks of addresses and event types.
    const input = checkBody<WebhookConsumerPrototype>(
      WebhookConsumerPrototype,
      {
        url: (form.get('url') ?? '').trim(),
        eventTypes: chosenEventTypes(form.getAll('eventTypes'), form.getAll('eventGroup')),
        ...(tags.length ? { companyTags: tags } : {}),
      },
      'CreateWebhookConsumer',
    );
    const created = await deps.webhooks.create(sessionOf(request).client.id, input);
    // The signing secret is shown on this answer only: no redirect, so it is in no address or history entry.
    const main = `<section class="card"><p>Deliveries to <code>${h(created.url)}</code> are signed with this secret (Standard Webhooks). It is shown only now: copy it to the receiver's configuration.</p>
<div class="field"><label for="secret">Signing secret</label><input id="secret" class="secret" readonly value="${h(created.secret)}"></div>
<p><a href="/portal/webhooks/${h(created.id)}">Go to the consumer</a> · <a href="/portal/webhooks">Back to webhooks</a></p></section>`;
    return sendPortalPage(
      reply,
      portalPage(ctx, { title: 'Consumer added', section: 'webhooks', main, notice: { kind: 'success', text: 'Consumer added.' } }),
      201,
    );
  });

  scope.get<{ Params: { consumerId: string } }>('/webhooks/:consumerId', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const clientId = sessionOf(request).client.id;
    const { consumerId } = request.params;
    const consumer = await deps.webhooks.get(clientId, consumerId);
    const deliveries = await deps.webhooks.deliveries(clientId, consumerId, 50);
    const base = `/portal/webhooks/${h(consumerId)}`;
    const rows = deliveries.map((d) => [
      `<code>${h(d.id)}</code>`,
      h(d.eventType),
      statusBadge(d.status),
      String(d.attempts),
      d.lastResponseStatus === null ? '—' : String(d.lastResponseStatus),
      h(d.lastError ?? ''),
      when(d.created),
      consumer.disabled ? '' : buttonForm(ctx, `${base}/deliveries/${h(d.id)}/replay`, 'Replay', { secondary: true, name: d.id }),
    ]);
    const main = `<p><a href="/portal/webhooks">Back to webhooks</a></p>
<section class="card" aria-labelledby="consumer-title"><h2 id="consumer-title">Consumer</h2>
<dl class="facts"><dt>Address</dt><dd><code>${h(consumer.url)}</code></dd><dt>State</dt><dd>${statusBadge(consumer.disabled ? 'disabled' : 'enabled')}</dd>
<dt>Event types</dt><dd>${h(consumer.eventTypes.join(', '))}</dd><dt>Companies</dt><dd>${h(consumer.companyTags?.join(', ') ?? 'Every company')}</dd></dl>
<p>${
      consumer.disabled ? buttonForm(ctx, `${base}/enable`, 'Enable') : buttonForm(ctx, `${base}/disable`, 'Disable', { secondary: true })
    } <a href="${base}/delete">Delete this consumer…</a></p></section>
<section class="card" aria-labelledby="deliveries-title"><h2 id="deliveries-title">Recent deliveries</h2>
${table('Deliveries', ['Delivery', 'Event', 'Status', 'Attempts', 'Last status code', 'Last error', 'Created', 'Actions'], rows, { captionHidden: true })}</section>`;
    return sendPortalPage(
      reply,
      portalPage(ctx, { title: 'Webhook consumer', section: 'webhooks', main, notice: doneNotice(request, DONE) }),
    );
  });

  for (const action of ['disable', 'enable'] as const) {
    scope.post<{ Params: { consumerId: string } }>(`/webhooks/:consumerId/${action}`, { config }, async (request, reply) => {
      await deps.webhooks.setDisabled(sessionOf(request).client.id, request.params.consumerId, action === 'disable');
      return reply.code(303).redirect(`/portal/webhooks/${request.params.consumerId}?done=${action}d`);
    });
  }

  scope.get<{ Params: { consumerId: string } }>('/webhooks/:consumerId/delete', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const consumer = await deps.webhooks.get(sessionOf(request).client.id, request.params.consumerId);
    const main = `<section class="card"><p>Deleting the consumer for <code>${h(consumer.url)}</code> stops its deliveries, pending ones included. This cannot be undone.</p>
<form method="post" action="/portal/webhooks/${h(consumer.id)}/delete">${csrfField(ctx)}<button type="submit" class="danger">Delete consumer</button>
<a href="/portal/webhooks/${h(consumer.id)}">Cancel</a></form></section>`;
    return sendPortalPage(reply, portalPage(ctx, { title: 'Delete this consumer?', section: 'webhooks', main }));
  });

  scope.post<{ Params: { consumerId: string } }>('/webhooks/:consumerId/delete', { config }, async (request, reply) => {
    await deps.webhooks.delete(sessionOf(request).client.id, request.params.consumerId);
    return reply.code(303).redirect('/portal/webhooks?done=deleted');
  });

  scope.post<{ Params: { consumerId: string; deliveryId: string } }>(
    '/webhooks/:consumerId/deliveries/:deliveryId/replay',
    { config },
    async (request, reply) => {
      await deps.webhooks.replay(sessionOf(request).client.id, request.params.consumerId, request.params.deliveryId);
      return reply.code(303).redirect(`/portal/webhooks/${request.params.consumerId}?done=replayed`);
    },
  );
}

/**
 * A family of event types as checkboxes. A family of many (writes: one per accounting data type) offers "every one"
 * as a single box, with the data types one by one folded away beneath it.
 */
function groupFieldset(group: EventTypeGroup): string {
  const id = `events-${group.key.replace(/\W+/g, '-')}`;
  const box = (eventType: string) => {
    const short = shortLabel(eventType);
    // The visible text is the data type (the group's legend says which event); the name read out is the whole type.
    const label = short === eventType ? h(eventType) : `${h(short)}<span class="sr-only">.${h(eventType.slice(short.length + 1))}</span>`;
    return `<label class="check"><input type="checkbox" name="eventTypes" value="${h(eventType)}"> ${label}</label>`;
  };
  const boxes = group.eventTypes.map(box).join('');
  const many = group.eventTypes.length > 6;
  return `<fieldset class="event-group" aria-describedby="${id}-hint"><legend>${h(group.title)}</legend>
<p id="${id}-hint" class="hint">${h(group.hint)}</p>
${
  many
    ? `<label class="check"><input type="checkbox" name="eventGroup" value="${h(group.key)}"> Every one (${group.eventTypes.length} data types)</label>
<details><summary>Or choose data types</summary><div class="checks">${boxes}</div></details>`
    : `<div class="checks">${boxes}</div>`
}</fieldset>`;
}
