// The emulator's test clocks (migration 0017, docs/emulator.md): used only with EMULATOR=true.

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
