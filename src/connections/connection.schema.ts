import { Type } from '@sinclair/typebox';

export const SOURCE_TYPES = ['Accounting', 'Banking', 'BankFeed', 'Commerce', 'Expense', 'Other', 'Unknown'] as const;
export const CONNECTION_STATUSES = ['PendingAuth', 'Linked', 'Unlinked', 'Deauthorized'] as const;

/** Why the platform refused the connection (on a Deauthorized one): connection-doc.ts `DataConnectionError`. */
const DataConnectionError = Type.Object({
  statusCode: Type.String({ description: "The platform's HTTP status, e.g. `401`." }),
  statusText: Type.String({ description: 'Its reason phrase, e.g. `Unauthorized`.' }),
  errorMessage: Type.String({ description: 'What the platform said.' }),
  erroredOnUtc: Type.String({ format: 'date-time', description: 'When the platform refused it.' }),
  status: Type.Union([Type.Literal('Active'), Type.Literal('Resolved')], {
    description: "Codat's two values; always `Active` here, as any later status clears the list.",
  }),
});

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
    dataConnectionErrors: Type.Optional(Type.Array(DataConnectionError)),
    // Codat's too: what a platform says of the connection, in its own terms.
    connectionInfo: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'Connection' },
);
