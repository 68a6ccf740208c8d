import { Type } from '@sinclair/typebox';
import type { ValidationItem } from '../http/api-error.js';
import type { WriteOperation } from '../connectors/connector.js';

export const PUSH_STATUSES = ['Pending', 'Failed', 'Success', 'TimedOut'] as const;
export type PushStatus = (typeof PUSH_STATUSES)[number];
export const PUSH_CHANGE_TYPES = ['Unknown', 'Created', 'Modified', 'Deleted', 'AttachmentUploaded'] as const;

const ValidationItemSchema = Type.Object({
  itemId: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  validatorName: Type.Optional(Type.String()),
});

const pushOperationProperties = {
  changes: Type.Optional(
    Type.Union([
      Type.Array(
        Type.Object({
          type: Type.Optional(Type.Union(PUSH_CHANGE_TYPES.map((t) => Type.Literal(t)))),
          recordRef: Type.Optional(Type.Object({ id: Type.Optional(Type.String()), dataType: Type.Optional(Type.String()) })),
          attachmentId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        }),
      ),
      Type.Null(),
    ]),
  ),
  dataType: Type.Optional(Type.String({ description: 'The data type written, e.g. `invoices`.' })),
  companyId: Type.String({ format: 'uuid' }),
  pushOperationKey: Type.String({ format: 'uuid', description: 'Identifies this write; keep it to follow its status.' }),
  dataConnectionKey: Type.String({ format: 'uuid', description: 'The connection written to.' }),
  requestedOnUtc: Type.String({ format: 'date-time' }),
  completedOnUtc: Type.Optional(Type.String({ format: 'date-time', description: 'Absent while Pending.' })),
  timeoutInMinutes: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  timeoutInSeconds: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { deprecated: true })),
  status: Type.Union(PUSH_STATUSES.map((s) => Type.Literal(s))),
  errorMessage: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  validation: Type.Optional(
    Type.Object({
      errors: Type.Optional(Type.Union([Type.Array(ValidationItemSchema), Type.Null()])),
      warnings: Type.Optional(Type.Union([Type.Array(ValidationItemSchema), Type.Null()])),
    }),
  ),
  statusCode: Type.Integer({
    description: '202 while Pending, 200 on Success, 400 when the platform refused the write, 504 when it timed out.',
  }),
};

export const PushOperation = Type.Object(pushOperationProperties, { $id: 'PushOperation', title: 'Push operation' });

/** What a write endpoint answers: the operation plus the record as sent. */
export const PushOperationWithData = Type.Object(
  { data: Type.Optional(Type.Unknown({ description: 'The record as sent (absent for deletes).' })), ...pushOperationProperties },
  { title: 'Write response' },
);

export interface PushOperationState {
  id: string;
  companyId: string;
  connectionId: string;
  dataType: string;
  operation: WriteOperation;
  status: PushStatus;
  requested: string;
  completed?: string | null;
  timeoutInMinutes: number | null;
  /** The record written, once known (the platform assigns a created record's id). */
  recordId?: string | null;
  /** The records a successful write created or changed, when not just `recordId` (a batch's transactions). */
  changed?: string[];
  errorMessage?: string | null;
  errors?: ValidationItem[];
}

const CHANGE_OF: Record<WriteOperation, (typeof PUSH_CHANGE_TYPES)[number]> = { Create: 'Created', Update: 'Modified', Delete: 'Deleted' };
const STATUS_CODE: Record<PushStatus, number> = { Pending: 202, Success: 200, Failed: 400, TimedOut: 504 };

/** The PushOperation wire document, re-rendered on every change and stored as text. */
export function pushOperationDoc(state: PushOperationState): string {
  const changed = state.changed ?? (state.recordId ? [state.recordId] : []);
  const changes =
    state.status === 'Success' && changed.length > 0
      ? changed.map((id) => ({ type: CHANGE_OF[state.operation], recordRef: { id, dataType: state.dataType }, attachmentId: null }))
      : null;
  return JSON.stringify({
    changes,
    dataType: state.dataType,
    companyId: state.companyId,
    pushOperationKey: state.id,
    dataConnectionKey: state.connectionId,
    requestedOnUtc: state.requested,
    ...(state.completed ? { completedOnUtc: state.completed } : {}),
    timeoutInMinutes: state.timeoutInMinutes,
    timeoutInSeconds: state.timeoutInMinutes === null ? null : state.timeoutInMinutes * 60,
    status: state.status,
    errorMessage: state.errorMessage ?? null,
    validation: { errors: state.errors ?? [], warnings: [] },
    statusCode: STATUS_CODE[state.status],
  });
}

/** The write response: `data` (the record as sent) spliced in front of the stored operation document. */
export function withData(doc: string, data: string | null): string {
  return data === null ? doc : `{"data":${data},${doc.slice(1)}`;
}
