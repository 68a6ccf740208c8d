import { createHash } from 'node:crypto';
import { validationError } from '../../http/api-error.js';
import type { AuthorizationKind, LinkContext, LinkResult } from '../connector.js';
import type { ConnectionSettings } from './generated-source.js';

/** Data set sizes a Sandbox connection can be authorised with: invoices at the first sync. */
export const SANDBOX_SIZES = { small: 200, medium: 10_000, large: 100_000 } as const;
export type SandboxSize = keyof typeof SANDBOX_SIZES;
export const MAX_SANDBOX_INVOICES = 5_000_000;

/**
 * Reads a Sandbox authorisation (`{"size": "small" | "medium" | "large"}` or `{"invoices": "<count>"}`; small by
 * default) into the settings the connection keeps. The seed comes from the company id, so a company's accounting,
 * banking and commerce Sandboxes describe one company (its bank shows its books' movements: one story), another
 * company is another story, and the same company always generates the same data.
 */
export function sandboxSettings(companyId: string, body: Record<string, unknown>, asOf: Date): ConnectionSettings {
  const size = body.size;
  const invoices = body.invoices;
  if (size !== undefined && invoices !== undefined) {
    throw validationError('ValidationException: Give either size or invoices, not both.', [
      { itemId: 'size', message: 'Give either size or invoices, not both', validatorName: 'SandboxAuthorization' },
    ]);
  }
  let count: number = SANDBOX_SIZES.small;
  if (size !== undefined) {
    if (typeof size !== 'string' || !Object.hasOwn(SANDBOX_SIZES, size)) {
      throw validationError('ValidationException: The Sandbox size is invalid.', [
        { itemId: 'size', message: 'size must be one of: small, medium, large', validatorName: 'SandboxAuthorization' },
      ]);
    }
    count = SANDBOX_SIZES[size as SandboxSize];
  }
  if (invoices !== undefined) {
    const n =
      typeof invoices === 'number' ? invoices : typeof invoices === 'string' && /^\d+$/.test(invoices.trim()) ? Number(invoices) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_SANDBOX_INVOICES) {
      throw validationError('ValidationException: The Sandbox invoice count is invalid.', [
        {
          itemId: 'invoices',
          message: `invoices must be a whole number from 1 to ${MAX_SANDBOX_INVOICES}`,
          validatorName: 'SandboxAuthorization',
        },
      ]);
    }
    count = n;
  }
  const seed = createHash('sha256').update(companyId).digest().readUInt32BE(0) & 0x7fffffff;
  return { seed, invoices: count, asOf: asOf.toISOString().slice(0, 10) };
}

/** The Sandboxes' authorization: nothing to sign in to, a data set size to choose (the Link page's choice). */
export const SANDBOX_AUTHORIZATION: AuthorizationKind = {
  kind: 'none',
  description: 'The Sandbox makes up realistic {sourceType} data for {company}, so you can try {brand} without real accounts.',
  choice: {
    name: 'size',
    legend: 'Data set size',
    default: 'small',
    options: (Object.keys(SANDBOX_SIZES) as SandboxSize[]).map((size) => ({
      value: size,
      label: size.charAt(0).toUpperCase() + size.slice(1),
      hint: `About ${SANDBOX_SIZES[size].toLocaleString('en-GB')} invoices${size === 'small' ? ' (default)' : ''}`,
    })),
  },
};

/** Links a Sandbox connection: a new data set when a size or count is given, else the one it had (or small). */
export async function linkSandbox(input: Record<string, unknown>, ctx: LinkContext): Promise<LinkResult> {
  const hasChoice = input.size !== undefined || input.invoices !== undefined;
  const settings =
    ctx.current && !hasChoice ? ctx.current : (sandboxSettings(ctx.companyId, input, ctx.now) as unknown as Record<string, unknown>);
  return { settings, credentials: null };
}
