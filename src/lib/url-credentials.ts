/** A URL as it may be shown (a log line, an error message): whatever signs in (`user:password@`) replaced by `…@`. */
export function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//…@');
}
