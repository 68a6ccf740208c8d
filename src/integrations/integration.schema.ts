import { Type } from '@sinclair/typebox';
import { DATA_TYPES } from '../codat-model/data-types.js';
import { SOURCE_TYPES } from '../connections/connection.schema.js';

export const FEATURE_TYPES = [
  'Get',
  'Post',
  'Categorization',
  'Delete',
  'Put',
  'GetAsPdf',
  'DownloadAttachment',
  'GetAttachment',
  'GetAttachments',
  'UploadAttachment',
] as const;
export const FEATURE_STATES = ['Release', 'Alpha', 'Beta', 'Deprecated', 'NotSupported', 'NotImplemented'] as const;

/** A platform this server can connect to (facts 1.3). */
export const Integration = Type.Object(
  {
    key: Type.String({ pattern: '^[a-z]{4}$' }),
    logoUrl: Type.String({ format: 'uri' }),
    name: Type.String(),
    enabled: Type.Boolean(),
    sourceId: Type.String(),
    sourceType: Type.Union(SOURCE_TYPES.map((s) => Type.Literal(s))),
    integrationId: Type.String({ format: 'uuid' }),
    isOfflineConnector: Type.Boolean(),
    isBeta: Type.Boolean(),
    dataProvidedBy: Type.String(),
    datatypeFeatures: Type.Array(
      Type.Object({
        datatype: Type.Union(
          DATA_TYPES.map((d) => Type.Literal(d)),
          { description: "The data type, as Codat's `required` list and example spell it." },
        ),
        dataType: Type.Union(
          DATA_TYPES.map((d) => Type.Literal(d)),
          { description: "The same data type, as Codat's properties and SDKs spell it." },
        ),
        supportedFeatures: Type.Array(
          Type.Object({
            featureType: Type.Union(FEATURE_TYPES.map((f) => Type.Literal(f))),
            featureState: Type.Union(FEATURE_STATES.map((f) => Type.Literal(f))),
          }),
        ),
      }),
    ),
  },
  { $id: 'Integration' },
);
