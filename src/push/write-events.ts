/**
 * The payload of `{dataType}.write.successful` and `.unsuccessful`: Codat's write webhook, the push operation as it
 * settled. The push job records it when a write settles; the emulator fires one on request.
 */
export function writeEventPayload(
  op: { id: string; operation: string; connection_id: string; requested: string },
  settled: { referenceCompany: Record<string, unknown>; completed: string; status: string; recordId: string | null },
) {
  return {
    id: op.id,
    type: op.operation,
    referenceCompany: settled.referenceCompany,
    connectionId: op.connection_id,
    requestedOnDate: op.requested,
    completedOnDate: settled.completed,
    status: settled.status,
    record: settled.recordId ? { id: settled.recordId } : null,
    attachmentId: null,
  };
}

/** The event type of a settled write. */
export function writeEventType(dataType: string, succeeded: boolean): string {
  return `${dataType}.write.${succeeded ? 'successful' : 'unsuccessful'}`;
}
