/** Characters a company name may hold (facts 1.1); anything else is removed, as Codat does. */
const FORBIDDEN = /[^A-Za-z0-9\s\-',&@.?!]/g;

/** Strips forbidden characters and surrounding space; may return an empty string. */
export function sanitizeCompanyName(name: string): string {
  return name.replace(FORBIDDEN, '').trim();
}
