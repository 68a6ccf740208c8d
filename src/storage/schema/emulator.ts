// The emulator's tables (migrations 0017, 0019, 0021; docs/emulator.md): used only with EMULATOR=true.
import type { Generated } from 'kysely';

export interface EmulatorClocksTable {
  id: string;
  client_id: string;
  /** The clock's business time, ISO-8601 UTC. */
  frozen_time: string;
  /** 'ready' or 'advancing'. */
  status: string;
  /** While advancing: the time the advance ends at. */
  advancing_to: string | null;
  created: string;
}

/** A company on a clock, or (company_id '') the client itself. */
export interface EmulatorClockMembersTable {
  client_id: string;
  company_id: string;
  clock_id: string;
}

/** A job due at a business time of a clock: released to the job engine when an advance reaches `due_at`. */
export interface EmulatorTimersTable {
  id: string;
  clock_id: string;
  due_at: string;
  kind: string;
  /** The job's payload, JSON. */
  payload: string;
  /** The company whose work it is, whose clock it follows; null for work that is no company's (it stays on its clock). */
  owner: string | null;
}

/** A job queued on a clock and not yet finished. */
export interface EmulatorTicketsTable {
  id: string;
  clock_id: string;
}

/** One request of a client's code, in the emulator's journal (migration 0021). */
export interface EmulatorRequestsTable {
  seq: Generated<number>;
  client_id: string;
  company_id: string | null;
  /** Real time the request arrived. */
  at: string;
  /** The business time it ran in (its clock's, or real time). */
  clock_time: string;
  method: string;
  /** The path without its query string. */
  path: string;
  /** The canonical operationId (src/emulator/operations.ts). */
  operation_id: string;
  status: number;
  duration_ms: number;
  request_sha256: string;
  /** Null when the answer was streamed (a download) rather than sent whole. */
  response_sha256: string | null;
}

/** A client's fault rule (migration 0021). */
export interface EmulatorFaultsTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  created: string;
  /** JSON: what a request, sync, push or delivery must be for the rule to fire. */
  match: string;
  /** JSON: what happens when it fires. */
  action: string;
  /** Fires this many times, then is spent; null: without end. */
  times: number | null;
  fired: Generated<number>;
  probability: number | null;
  seed: number | null;
  /** Draws made against `probability` (the seeded sequence's position). */
  draws: Generated<number>;
}

/** A webhook delivery a `reorder` rule holds until another delivery to its consumer has been attempted (migration 0021). */
export interface EmulatorHeldDeliveriesTable {
  delivery_id: string;
  consumer_id: string;
}

/** The scenario a Sandbox connection was last authorised with (migration 0022). */
export interface EmulatorScenariosTable {
  connection_id: string;
  client_id: string;
  company_id: string;
  scenario: string;
}

/** What a connection's scenario has done since it was linked, one mark per row (migration 0022). */
export interface EmulatorScenarioMarksTable {
  connection_id: string;
  mark: string;
  client_id: string;
  company_id: string;
  value: string | null;
}

/** The fault rule that fired on a sync (`pull:<id>`), write (`push:<id>`) or delivery (`delivery:<id>`) (migration 0022). */
export interface EmulatorFiredWorkTable {
  work_id: string;
  client_id: string;
  /** The rule that fired, or '' when rules were drawn against and none fired. */
  fault_id: string;
  /** The company the work was for (none: a client-level event's delivery). */
  company_id: string | null;
}
