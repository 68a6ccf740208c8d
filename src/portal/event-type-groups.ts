import { EVENT_TYPES } from '../webhooks/events.js';

/** Event types of one family, as the webhook form shows them. */
export interface EventTypeGroup {
  /** The form's value for "every event of this group". */
  key: string;
  title: string;
  hint: string;
  eventTypes: string[];
}

const WRITE = /^(.+)\.write\.(successful|unsuccessful)$/;

/**
 * The event types by family: companies, connections, reads, rate limits, account categories, then writes (two per accounting data type,
 * the bulk of the list). Every event type is in exactly one group; one that no family names (added later to
 * EVENT_TYPES) lands in "Other" rather than off the form.
 */
export function eventTypeGroups(eventTypes: readonly string[] = EVENT_TYPES): EventTypeGroup[] {
  const families: Omit<EventTypeGroup, 'eventTypes'>[] = [
    { key: 'company', title: 'Companies', hint: 'A company is created or deleted.' },
    { key: 'connection', title: 'Connections', hint: 'A connection is created, linked, unlinked or deleted.' },
    { key: 'read', title: 'Reads (syncs)', hint: 'A data type finished syncing; "initial" for its first sync only.' },
    { key: 'client', title: 'Rate limits', hint: 'The daily quota is used up, or starts again.' },
    { key: 'accountCategories', title: 'Account categories', hint: "An account's category is confirmed, changed or dropped." },
    { key: 'write.successful', title: 'Writes that succeeded', hint: 'A push to the platform was made, per data type.' },
    { key: 'write.unsuccessful', title: 'Writes that failed', hint: 'A push to the platform was refused or failed, per data type.' },
  ];
  const familyOf = (eventType: string): string => {
    const write = WRITE.exec(eventType);
    if (write) return `write.${write[2]}`;
    return eventType.split('.')[0];
  };
  const groups = families.map((f) => ({ ...f, eventTypes: eventTypes.filter((t) => familyOf(t) === f.key) }));
  const other = eventTypes.filter((t) => !families.some((f) => f.key === familyOf(t)));
  if (other.length) groups.push({ key: 'other', title: 'Other', hint: 'Further events.', eventTypes: other });
  return groups.filter((g) => g.eventTypes.length > 0);
}

/** The event types a form chose: those ticked one by one, and every one of each group ticked as a whole. */
export function chosenEventTypes(ticked: readonly string[], groupsTicked: readonly string[]): string[] {
  const all = new Set(ticked);
  for (const group of eventTypeGroups()) if (groupsTicked.includes(group.key)) for (const t of group.eventTypes) all.add(t);
  // In the catalogue's order, so the consumer lists them as the form does.
  return [...EVENT_TYPES.filter((t) => all.has(t)), ...[...all].filter((t) => !EVENT_TYPES.includes(t))];
}

/** `bills.write.successful` → `bills`: how a write's checkbox is labelled inside its group. */
export function shortLabel(eventType: string): string {
  return WRITE.exec(eventType)?.[1] ?? eventType;
}
