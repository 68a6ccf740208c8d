import { Type } from '@sinclair/typebox';

export const SOURCE_TYPES = ['Accounting', 'Banking', 'BankFeed', 'Commerce', 'Expense', 'Other', 'Unknown'] as const;
export const CONNECTION_STATUSES = ['PendingAuth', 'Linked', 'Unlinked', 'Deauthorized'] as const;

/** A company's connection to a platform (facts 1.2). */
export const Connection = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    integrationId: Type.String({ format: 'uuid' }),
    integrationKey: Type.String({ description: 'Four-letter platform key, e.g. `mqjo`.' }),
    sourceId: Type.String(),
    sourceType: Type.Union(SOURCE_TYPES.map((s) => Type.Literal(s))),
    platformName: Type.String(),
    linkUrl: Type.String({ format: 'uri' }),
    status: Type.Union(CONNECTION_STATUSES.map((s) => Type.Literal(s))),
    lastSync: Type.Optional(Type.String({ format: 'date-time' })),
    created: Type.String({ format: 'date-time' }),
    dataConnectionErrors: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    connectionInfo: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'Connection' },
);
