// Webhooks: consumers, the events recorded for them, and each event's delivery to each consumer.

export interface WebhookConsumersTable {
  id: string;
  client_id: string;
  url: string;
  disabled: number;
  /** JSON array of event type names. */
  event_types: string;
  /** JSON array of `tagKey:tagValue`, or null for every company. */
  company_tags: string | null;
  /** `whsec_<base64>`: signs every delivery; shown once, when the consumer is created. */
  secret: string;
  created: string;
  failing_since: string | null;
}

/** An event, recorded in the transaction of the change that caused it. */
export interface WebhookEventsTable {
  id: string;
  client_id: string;
  event_type: string;
  company_id: string | null;
  generated: string;
  body: string;
}

/** One event on its way to one consumer. */
export interface WebhookDeliveriesTable {
  /** `msg_...`, sent as `webhook-id`. */
  id: string;
  event_id: string;
  consumer_id: string;
  client_id: string;
  /** pending | delivered | failed (retries exhausted) | dropped (consumer disabled or deleted) */
  status: string;
  attempts: number;
  next_attempt: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created: string;
  delivered: string | null;
}
