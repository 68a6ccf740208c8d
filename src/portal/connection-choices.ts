/** A platform as `/integrations` serves it. */
export interface Platform {
  key: string;
  name: string;
  sourceType: string;
  enabled?: boolean;
}

/** A company's connection as the connections list serves it. */
export interface Connection {
  id: string;
  platformName: string;
  sourceType: string;
  status: string;
}

/**
 * The platforms a company can still connect, and why others are left out. A company holds one accounting
 * connection (whatever its status: `POST …/connections` answers 409 for a second), so once it has one no accounting
 * platform is offered, rather than offered and refused.
 */
export function connectionChoices(
  companyName: string,
  platforms: readonly Platform[],
  connections: readonly Connection[],
): { offered: Platform[]; why?: string } {
  const enabled = platforms.filter((p) => p.enabled !== false);
  const accounting = connections.find((c) => c.sourceType === 'Accounting');
  if (!accounting) return { offered: enabled };
  return {
    offered: enabled.filter((p) => p.sourceType !== 'Accounting'),
    why:
      `Accounting platforms are not offered: a company has one accounting connection, and ${companyName} already has one ` +
      `(${accounting.platformName}, ${accounting.status}). To connect another accounting platform, delete that connection ` +
      `first (DELETE /companies/{companyId}/connections/${accounting.id}).`,
  };
}
