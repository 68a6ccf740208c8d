import { Type } from '@sinclair/typebox';

export const DATASET_STATUSES = [
  'Initial',
  'Queued',
  'Fetching',
  'MapQueued',
  'Mapping',
  'Complete',
  'FetchError',
  'MapError',
  'InternalError',
  'ProcessingQueued',
  'Processing',
  'ProcessingError',
  'ValidationQueued',
  'Validating',
  'ValidationError',
  'AuthError',
  'Cancelled',
  'NotSupported',
  'RateLimitError',
  'PermissionsError',
  'PrerequisiteNotMet',
] as const;
export type DatasetStatus = (typeof DATASET_STATUSES)[number];

/** Statuses of a sync that is queued or running: at most one per connection and type (`pull_operations_one_active`). */
export const ACTIVE_STATUSES: readonly DatasetStatus[] = ['Queued', 'Fetching'];
/**
 * Statuses of an operation that has not finished: active, or an upload session's while the session is open
 * (`Initial`) or waits for the sync ahead of it (`ProcessingQueued`).
 */
export const UNFINISHED_STATUSES: readonly DatasetStatus[] = ['Initial', 'ProcessingQueued', ...ACTIVE_STATUSES];
const ERROR_STATUSES: ReadonlySet<string> = new Set([
  'FetchError',
  'MapError',
  'InternalError',
  'ProcessingError',
  'ValidationError',
  'AuthError',
  'RateLimitError',
  'PermissionsError',
  'PrerequisiteNotMet',
  'Cancelled',
]);

export const PullOperation = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The data set id.' }),
    companyId: Type.String({ format: 'uuid' }),
    connectionId: Type.String({ format: 'uuid' }),
    dataType: Type.String(),
    status: Type.Union(DATASET_STATUSES.map((s) => Type.Literal(s))),
    statusDescription: Type.Optional(Type.String()),
    errorMessage: Type.Optional(Type.String()),
    requested: Type.String({ format: 'date-time' }),
    completed: Type.Optional(Type.String({ format: 'date-time' })),
    progress: Type.Integer({ minimum: 0, maximum: 100 }),
    isCompleted: Type.Boolean(),
    isErrored: Type.Boolean(),
  },
  { $id: 'PullOperation' },
);

export interface PullOperationState {
  id: string;
  companyId: string;
  connectionId: string;
  dataType: string;
  status: DatasetStatus;
  statusDescription?: string;
  errorMessage?: string;
  requested: string;
  completed?: string;
  progress: number;
}

/** The PullOperation wire document (stored as text, re-rendered on every change). */
export function pullOperationDoc(state: PullOperationState): string {
  return JSON.stringify({
    id: state.id,
    companyId: state.companyId,
    connectionId: state.connectionId,
    dataType: state.dataType,
    status: state.status,
    ...(state.statusDescription ? { statusDescription: state.statusDescription } : {}),
    ...(state.errorMessage ? { errorMessage: state.errorMessage } : {}),
    requested: state.requested,
    ...(state.completed ? { completed: state.completed } : {}),
    progress: Math.max(0, Math.min(100, Math.round(state.progress))),
    isCompleted: state.status === 'Complete',
    isErrored: ERROR_STATUSES.has(state.status),
  });
}
