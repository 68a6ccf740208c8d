import { Type, type Static } from '@sinclair/typebox';

export const MAX_COMPANY_TAGS = 10;
export const MAX_COMPANY_TAG_LENGTH = 128;

const CompanyTags = {
  type: ['array', 'null'],
  maxItems: MAX_COMPANY_TAGS,
  items: { type: 'string', maxLength: MAX_COMPANY_TAG_LENGTH },
  description:
    `Only events of companies holding at least one of these tags (\`tagKey:tagValue\`, case-sensitive, at most ${MAX_COMPANY_TAGS}) ` +
    'reach this consumer; null or empty for every company. Client-level events (rate limits) reach only consumers without tags.',
} as const;

/** Codat's WebhookConsumer (facts 1.6). */
export const WebhookConsumer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String({ format: 'uri', description: 'Where events are POSTed.' }),
    disabled: Type.Boolean({ description: 'A disabled consumer receives nothing. Set by the server after 5 days of failed deliveries.' }),
    eventTypes: Type.Array(Type.String(), { description: 'The event types this consumer receives.' }),
    companyTags: Type.Unsafe<string[] | null>(CompanyTags),
  },
  { $id: 'WebhookConsumer' },
);
export type WebhookConsumer = Static<typeof WebhookConsumer>;

/** The answer to a create: the consumer plus its signing secret, shown this once. */
export const CreatedWebhookConsumer = Type.Object({
  ...WebhookConsumer.properties,
  secret: Type.String({
    description: 'Signs every delivery (`webhook-signature`, Standard Webhooks): `whsec_` and Base64. Only in this response.',
  }),
});

/** Codat's webhookConsumerPrototype; event types, URL and tag formats are checked by the service. */
export const WebhookConsumerPrototype = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'An absolute http or https address.' }),
  disabled: Type.Optional(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'], description: 'Create the consumer switched off.' })),
  eventTypes: Type.Array(Type.String(), { minItems: 1, description: 'At least one event type name, e.g. `company.created`.' }),
  companyTags: Type.Optional(Type.Unsafe<string[] | null>(CompanyTags)),
});
export type WebhookConsumerPrototype = Static<typeof WebhookConsumerPrototype>;
