/** A written customer's addresses, as both commerce write-backs (Stripe, Square) read them. */

type Data = Record<string, unknown>;

/** The address fields of Codat's customer that a platform can keep. */
export const CUSTOMER_ADDRESS_FIELDS = ['line1', 'line2', 'city', 'region', 'postalCode', 'country'] as const;

/** A text field's value, trimmed; undefined when absent, not text, or blank. */
export const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** The record's addresses that say anything: one with no field set is no address. */
export function filledAddresses(record: Data): Data[] {
  const addresses = Array.isArray(record.addresses) ? (record.addresses as unknown[]) : [];
  return addresses.filter(
    (a): a is Data => typeof a === 'object' && a !== null && CUSTOMER_ADDRESS_FIELDS.some((f) => textOf((a as Data)[f]) !== undefined),
  );
}
