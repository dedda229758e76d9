// Pure rules of the help desk: statuses, priorities, validation of one help-sync update row,
// and the state table of spec section 3 applied to one row. No I/O here.

import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { isStorableText } from '../../lib/text.ts';
import { batchLimits } from '../feeds/batch-limits.ts';

export const statuses = ['new', 'ack', 'in_progress', 'resolved'] as const;
export type Status = (typeof statuses)[number];
export const priorities = ['low', 'normal', 'high', 'crisis'] as const;
export type Priority = (typeof priorities)[number];
/** What a help request is about, as the student chose it (docs/student-app.md). */
export const categories = ['wellbeing', 'academic', 'financial', 'accommodation', 'other'] as const;
export type Category = (typeof categories)[number];
/** `reply` (a public reply to the student) only where the institution's admins allowed it. */
export const syncActions = ['acknowledge', 'note', 'resolve', 'reopen', 'reply'] as const;
export type SyncAction = (typeof syncActions)[number];

export const MAX_UPDATES = batchLimits.helpSync.updates;
export const MAX_EXTERNAL_REF = 200;
export const MAX_ACTOR = 200;
export const MAX_NOTE = 10_000;
/** The longest reply to a student, and the longest answer of a student (the conversation). */
export const MAX_REPLY = 5_000;
export const MAX_STUDENT_MESSAGE = 2_000;
export const DEFAULT_SYNC_ACTOR = 'help-desk sync';
/** The longest public reply: MAX_REPLY of ./conversation.ts, the same for the console and the sync. */
export const MAX_SYNC_REPLY = 5_000;

/**
 * Row-level error codes of the help-desk sync (spec section 7, plus the documented extras),
 * each with the `message` a result row carries beside it, for people (it may be reworded;
 * clients branch on the code).
 */
export const syncRowErrorMessages = {
  not_found: 'no help request with this id in the institution of the secret (ids come from webhook payloads)',
  bad_action: `action must be one of ${syncActions.join(', ')}`,
  bad_help_request_id:
    "help_request_id must be the platform's help request UUID from webhook payloads, not an external ticket number",
  note_required: 'a note row needs a non-blank note',
  reply_required: 'a reply row needs a non-blank note: the words the student reads',
  reply_too_long: 'a reply is at most 5,000 characters',
  replies_not_enabled:
    'public replies through help-sync are off for this institution: an admin turns them on (console Secrets, or PUT …/help-sync-settings)',
  update_failed: 'the change could not be written; retry the row',
  bad_external_ref: `external_ref must be a string of 1 to ${MAX_EXTERNAL_REF} characters without NUL characters or lone surrogates`,
  bad_note: `note must be a string of at most ${MAX_NOTE} characters without NUL characters or lone surrogates`,
  bad_actor: `actor must be a non-blank name of at most ${MAX_ACTOR} characters without NUL characters or lone surrogates`,
  bad_observed_at:
    'observed_at must be an ISO 8601 date-time with an offset, for example 2026-03-01T09:30:00Z',
} as const;

export type SyncRowError = keyof typeof syncRowErrorMessages;

export const syncRowErrors = Object.keys(syncRowErrorMessages) as SyncRowError[];

/** An update row that passed validation. */
export interface ValidRow {
  helpRequestId: string;
  action: SyncAction;
  externalRef?: string;
  note?: string;
  actor: string;
  observedAt?: Date;
}

export type RowValidation =
  | { ok: true; row: ValidRow }
  | { ok: false; helpRequestId: string; error: SyncRowError };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isoDateTime = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(\.\d{1,9})?)?(Z|[+-](\d\d):?(\d\d))$/i;

/**
 * Parses an ISO 8601 date-time with an offset. Impossible dates and times (30 February,
 * 24:00, minute 60, an offset of 24 hours) are refused rather than rolled over, by checking
 * that every part survives a round trip through a UTC date.
 */
export function parseDateTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = isoDateTime.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1, 6).map(Number);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  check.setUTCHours(hour, minute, second);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  ) {
    return undefined;
  }
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Parses a name (actor or staff): a non-blank string of at most 200 characters, trimmed, that
 * PostgreSQL can store (no NUL, no lone UTF-16 surrogate).
 */
export function parseName(value: unknown): string | undefined {
  if (typeof value !== 'string' || !isStorableText(value)) return undefined;
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_ACTOR) return undefined;
  return trimmed;
}

/**
 * Validates one update row of any shape. Checks run in a fixed order so that a row with
 * several problems always reports the same one: help_request_id, action, note, external_ref,
 * actor, observed_at. Unknown fields (priority, assignment, ...) are ignored: the sync can
 * never change them.
 */
export function validateRow(raw: unknown, defaultActor: string): RowValidation {
  const record = isObject(raw) ? raw : {};
  const rawId = record.help_request_id;
  const echoId = typeof rawId === 'string' ? rawId : '';
  const fail = (error: SyncRowError): RowValidation => ({ ok: false, helpRequestId: echoId, error });
  if (typeof rawId !== 'string' || !uuidPattern.test(rawId)) return fail('bad_help_request_id');
  const action = record.action;
  if (typeof action !== 'string' || !(syncActions as readonly string[]).includes(action)) {
    return fail('bad_action');
  }
  let note: string | undefined;
  if (record.note !== undefined && record.note !== null) {
    if (typeof record.note !== 'string' || record.note.length > MAX_NOTE || !isStorableText(record.note)) {
      return fail('bad_note');
    }
    note = record.note.trim() === '' ? undefined : record.note;
  }
  if (action === 'note' && note === undefined) return fail('note_required');
  if (action === 'reply' && note === undefined) return fail('reply_required');
  if (action === 'reply' && note !== undefined && note.length > MAX_SYNC_REPLY) return fail('reply_too_long');
  let externalRef: string | undefined;
  if (record.external_ref !== undefined && record.external_ref !== null) {
    const ref = record.external_ref;
    if (
      typeof ref !== 'string' ||
      ref.length === 0 ||
      ref.length > MAX_EXTERNAL_REF ||
      !isStorableText(ref)
    ) {
      return fail('bad_external_ref');
    }
    externalRef = ref;
  }
  let actor = defaultActor;
  if (record.actor !== undefined && record.actor !== null) {
    const parsed = parseName(record.actor);
    if (parsed === undefined) return fail('bad_actor');
    actor = parsed;
  }
  let observedAt: Date | undefined;
  if (record.observed_at !== undefined && record.observed_at !== null) {
    const date = parseDateTime(record.observed_at);
    if (!date) return fail('bad_observed_at');
    observedAt = date;
  }
  return {
    ok: true,
    row: {
      helpRequestId: rawId.toLowerCase(),
      action: action as SyncAction,
      externalRef,
      note,
      actor,
      observedAt,
    },
  };
}

/** The part of a help request the sync reads and writes. */
export interface SyncState {
  status: Status;
  externalRef: string | null;
  resolvedAt: Date | null;
  version: number;
  staffStatusChangedAt: Date | null;
}

export interface RowOutcome {
  /** State after the row. */
  state: SyncState;
  /** The row wrote something: status, resolved time, external_ref, or a note. */
  changed: boolean;
  statusChanged: boolean;
  /**
   * The row's state change lost to a later staff change (console precedence): its status
   * change was not applied; its external_ref, if new, was stamped and a resolve's note added.
   */
  superseded: boolean;
  /** The note to append to the timeline, if any. */
  note?: string;
}

/**
 * Applies one valid row to a request's state (spec section 3):
 * - acknowledge: new -> ack; otherwise unchanged;
 * - resolve: any open status -> resolved, resolved time stamped; resolved: unchanged. Its
 *   note lands in the timeline either way (spec 2.5/4.3), and a note written is a change, as
 *   for note rows: a retried resolve with a note adds the note again;
 * - reopen: resolved -> in_progress, resolved time cleared; otherwise unchanged;
 * - note: adds the note; always a change.
 * - reply: adds a public reply (the student reads it); always a change, never superseded.
 * external_ref is stamped on any action (a change only when it differs).
 * Console precedence: when the row carries observed_at (counted as at most now) and a staff
 * member changed the status after it, a state action (acknowledge, resolve, reopen) is superseded: its status change is
 * not applied, but its external_ref is still stamped (spec 4.3: "on any action"), a change
 * when it differs, and a resolve's note still lands (a note is not a state view, so notes are
 * never superseded).
 */
export function applyRow(state: SyncState, row: ValidRow, now: Date): RowOutcome {
  // A view cannot have been taken after the row arrived: a help desk whose clock runs ahead (or
  // a far-future observed_at) must not outrank the console, so observed_at counts as at most now.
  const observedAt = row.observedAt && Math.min(row.observedAt.getTime(), now.getTime());
  if (
    row.action !== 'note' &&
    row.action !== 'reply' &&
    observedAt !== undefined &&
    state.staffStatusChangedAt !== null &&
    state.staffStatusChangedAt.getTime() > observedAt
  ) {
    const refChanged = row.externalRef !== undefined && row.externalRef !== state.externalRef;
    const note = row.action === 'resolve' ? row.note : undefined;
    if (!refChanged && note === undefined) {
      return { state, changed: false, statusChanged: false, superseded: true };
    }
    return {
      state: {
        ...state,
        externalRef: refChanged ? row.externalRef! : state.externalRef,
        version: state.version + 1,
      },
      changed: true,
      statusChanged: false,
      superseded: true,
      note,
    };
  }
  let status = state.status;
  let resolvedAt = state.resolvedAt;
  let note: string | undefined;
  switch (row.action) {
    case 'acknowledge':
      if (status === 'new') status = 'ack';
      break;
    case 'resolve':
      if (status !== 'resolved') {
        status = 'resolved';
        resolvedAt = now;
      }
      note = row.note;
      break;
    case 'reopen':
      if (status === 'resolved') {
        status = 'in_progress';
        resolvedAt = null;
      }
      break;
    case 'note':
    case 'reply':
      note = row.note;
      break;
  }
  const statusChanged = status !== state.status;
  const refChanged = row.externalRef !== undefined && row.externalRef !== state.externalRef;
  const changed = statusChanged || refChanged || note !== undefined;
  if (!changed) return { state, changed: false, statusChanged: false, superseded: false };
  return {
    state: {
      status,
      resolvedAt,
      externalRef: refChanged ? row.externalRef! : state.externalRef,
      version: state.version + 1,
      staffStatusChangedAt: state.staffStatusChangedAt,
    },
    changed: true,
    statusChanged,
    superseded: false,
    note,
  };
}

/** Staff status change: any status may be set; resolved time follows the status. */
export function staffStatusChange(state: SyncState, status: Status, now: Date): SyncState | undefined {
  if (status === state.status) return undefined;
  return {
    ...state,
    status,
    resolvedAt: status === 'resolved' ? now : null,
    version: state.version + 1,
    staffStatusChangedAt: now,
  };
}

/**
 * Who a staff change is attributed to. A signed-in person (a session) is who they are: the name
 * of their session, whatever the body says, so the timeline and the event show the real
 * person. A machine caller (the operator token) has no person behind it and names the staff
 * member in `staff`, which it must send.
 */
export function actingStaff(
  caller: { actor: string; sessionId?: string },
  staff: string | undefined,
): string {
  if (caller.sessionId !== undefined) return caller.actor;
  if (staff === undefined)
    throw new ApiError('missing_field', {
      field: 'staff',
      detail:
        'staff is required: name the staff member making the change (signed-in people are named by their session)',
    });
  return staff;
}
