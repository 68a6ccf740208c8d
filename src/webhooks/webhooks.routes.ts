import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { errorResponses } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { CreatedWebhookConsumer, WebhookConsumer, WebhookConsumerPrototype } from './webhook-consumer.schema.js';
import { createWebhooksService, MAX_WEBHOOK_CONSUMERS, type WebhooksService } from './webhooks.service.js';

const tags = ['Webhooks'];

/** Webhook consumers (facts 1.6). Deliveries are signed per Standard Webhooks with the consumer's secret. */
export function registerWebhookRoutes(app: FastifyInstance, deps: { webhooks: WebhooksService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { webhooks } = deps;

  r.get(
    '/webhooks',
    {
      schema: {
        operationId: 'list-webhook-consumers',
        summary: 'List webhook consumers',
        description: "The client's consumers, oldest first. Secrets are never listed.",
        tags,
        response: {
          200: Type.Object({ results: Type.Array(Type.Ref(WebhookConsumer), { maxItems: MAX_WEBHOOK_CONSUMERS }) }),
          ...errorResponses(),
        },
      },
    },
    async (request) => ({ results: await webhooks.list(callerOf(request).id) }),
  );

  r.post(
    '/webhooks',
    {
      schema: {
        operationId: 'create-webhook-consumer',
        summary: 'Create webhook consumer',
        description:
          `At most ${MAX_WEBHOOK_CONSUMERS} consumers: the next answers 409. The response carries the signing \`secret\`, shown only this once. ` +
          'Addresses on loopback, private or link-local networks are refused unless the server allows them (`WEBHOOKS_ALLOW_PRIVATE`).',
        tags,
        body: WebhookConsumerPrototype,
        response: { 201: CreatedWebhookConsumer, ...errorResponses(409) },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.create(callerOf(request).id, request.body)),
  );

  r.delete(
    '/webhooks/:webhookId',
    {
      schema: {
        operationId: 'delete-webhook-consumer',
        summary: 'Delete webhook consumer',
        description: 'Messages not yet delivered to it are dropped.',
        tags,
        params: Type.Object({ webhookId: Type.String({ format: 'uuid', description: 'Unique identifier for the webhook consumer.' }) }),
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await webhooks.delete(callerOf(request).id, request.params.webhookId);
      return reply.code(204).send(null);
    },
  );
}

/** Adds the WebhookConsumer schema and the consumer routes over the store. */
export function registerWebhooks(app: FastifyInstance, deps: { db: Kysely<Database>; allowPrivate?: boolean }): void {
  app.addSchema(WebhookConsumer);
  registerWebhookRoutes(app, { webhooks: createWebhooksService({ db: deps.db, allowPrivate: deps.allowPrivate }) });
}
