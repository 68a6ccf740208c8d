/** What each plan allows. Operators can override the quota and burst limit per client. */
export interface Plan {
  name: PlanName;
  /** Most companies the client may hold; undefined for no limit. */
  maxCompanies?: number;
  /** Whether a sync schedule of one hour is allowed. */
  allowsHourlySync: boolean;
  /** Days after creation when every endpoint answers 402; undefined for never. */
  accountLifetimeDays?: number;
  /** Daily request quota for a client with this many companies holding a linked connection; undefined for none. */
  defaultDailyQuota(linkedCompanies: number): number | undefined;
}

export const PLAN_NAMES = ['free-trial', 'standard'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

const plans: Record<PlanName, Plan> = {
  'free-trial': {
    name: 'free-trial',
    maxCompanies: 50,
    allowsHourlySync: false,
    accountLifetimeDays: 365,
    defaultDailyQuota: (linkedCompanies) => 1000 * (1 + linkedCompanies),
  },
  standard: {
    name: 'standard',
    allowsHourlySync: true,
    defaultDailyQuota: () => undefined,
  },
};

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}

export function getPlan(name: string): Plan {
  if (!isPlanName(name)) throw new Error(`unknown plan ${name}`);
  return plans[name];
}

/** True once a plan with a lifetime has run past it. */
export function isAccountExpired(plan: Plan, createdAt: string, now: Date): boolean {
  if (plan.accountLifetimeDays === undefined) return false;
  return now.getTime() - Date.parse(createdAt) > plan.accountLifetimeDays * 86_400_000;
}
