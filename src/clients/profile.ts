import { Type, type Static } from '@sinclair/typebox';

const HttpUrl = (description: string) => Type.String({ maxLength: 2000, pattern: '^(https?://\\S+)?$', description });

/** The client's Profile (facts 1.4). `redirectUrl` may contain `{placeholders}`; empty means the built-in finish page. */
export const Profile = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Name shown to end users on the Link page.' }),
    logoUrl: Type.Optional(HttpUrl('Logo shown on the Link page.')),
    iconUrl: Type.Optional(HttpUrl('Small icon shown on the Link page.')),
    redirectUrl: HttpUrl('Where Link sends the end user when done; may contain placeholders such as {companyId} and {statusCode}.'),
    whiteListUrls: Type.Optional(Type.Array(HttpUrl('An allowed redirect address.'), { maxItems: 50 })),
    confirmCompanyName: Type.Optional(Type.Boolean({ deprecated: true })),
  },
  { $id: 'Profile' },
);
export type Profile = Static<typeof Profile>;

/** An update: Codat's SDK sends the deprecated `apiKey` and may send other fields; they are accepted and dropped. */
export const ProfileUpdate = Type.Object(Profile.properties, {
  additionalProperties: true,
  description: 'The profile; other fields are accepted and dropped.',
});

export function defaultProfile(clientName: string): Profile {
  return { name: clientName, redirectUrl: '', whiteListUrls: [] };
}

/** Keeps only the Profile's own fields (drops the deprecated `apiKey` and anything unknown). */
export function normalizeProfile(input: Profile): Profile {
  const out: Profile = { name: input.name, redirectUrl: input.redirectUrl };
  if (input.logoUrl !== undefined) out.logoUrl = input.logoUrl;
  if (input.iconUrl !== undefined) out.iconUrl = input.iconUrl;
  out.whiteListUrls = input.whiteListUrls ?? [];
  if (input.confirmCompanyName !== undefined) out.confirmCompanyName = input.confirmCompanyName;
  return out;
}
