// POST /api/integrations/help-sync: an external ticketing system mirrors case status changes
// onto help requests (spec sections 3 and 4.3).
//
// Cost of a request, whatever its size: one query locks every named request of the
// institution (SELECT ... FOR UPDATE, id order), the rows are applied in order in memory
// (pure rules, so several rows for one request compose), and three set-based statements,
// inside a savepoint, write the final state of every changed request, all their timeline
// entries (appendTimeline, the timeline's one writer) and all their events (recordEvents, the
// events' one writer, whose insert also fans out webhook deliveries through a trigger).
// If that write fails, it is rolled back to the savepoint and the requests are bisected,
// each half written in its own savepoint, down to the single requests whose write fails (k
// failing requests out of n cost about 2k·log2(n) extra statements, not n). The rows of such a
// request are then replayed one by one from its locked state, each written in its own
// savepoint: a row whose write fails gets `update_failed`, and the request's other rows apply
// on their own, each seeing the result of the rows before it that were written.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';
import { inSavepoint } from '../../db/savepoint.ts';
import { ApiError } from '../../errors.ts';
import type { Deps } from '../deps.ts';
import { type NewEvent, recordEvents } from '../events/record.ts';
import { checkBatchSize } from '../feeds/batch-limits.ts';
import type { SyncCaller } from '../secrets/help-sync-secrets.ts';
import { messageEventData } from './conversation.ts';
import { appendTimeline, lockRequests, selectHelpSyncReplies, updateSyncedRequests } from './queries.ts';
import {
  applyRow,
  DEFAULT_SYNC_ACTOR,
  parseName,
  type RowValidation,
  type SyncRowError,
  type SyncState,
  syncRowErrorMessages,
  type ValidRow,
  validateRow,
} from './rules.ts';
import { eventData, type HelpRequestRow, syncState, type TimelineEntry } from './store.ts';

export interface SyncBody {
  institution: string;
  actor?: string;
  updates: unknown[];
}

/** One result row, in the order of the update rows. */
export interface SyncResult {
  help_request_id: string;
  ok: boolean;
  status?: string;
  changed?: boolean;
  external_ref?: string;
  error?: SyncRowError;
  /** With `error`: what is wrong, for people. */
  message?: string;
  superseded?: true;
}

/** The result of a row that failed with `error`. */
function failed(helpRequestId: string, error: SyncRowError): SyncResult {
  return { help_request_id: helpRequestId, ok: false, error, message: syncRowErrorMessages[error] };
}

interface Group {
  row: HelpRequestRow;
  state: SyncState;
  /** The update rows naming this request, in order, with their positions. */
  rows: { row: ValidRow; position: number }[];
  entries: TimelineEntry[];
  events: NewEvent[];
}

/** Writes the final state, timeline entries and events of the given requests, set-based. */
async function write(tx: Queryable, institutionId: string, groups: Group[], now: Date) {
  const updates = groups
    .filter((g) => g.state.version !== g.row.version)
    .map((g) => ({
      id: g.row.id,
      status: g.state.status,
      resolved_at: g.state.resolvedAt?.toISOString() ?? null,
      external_ref: g.state.externalRef,
      version: g.state.version,
    }));
  const entries = groups.flatMap((g) => g.entries);
  if (entries.length === 0 && updates.length === 0) return;
  if (updates.length > 0) {
    await updateSyncedRequests(tx, institutionId, updates, now);
  }
  await appendTimeline(tx, institutionId, entries);
  await recordEvents(
    tx,
    groups.flatMap((g) => g.events),
  );
}

/** The body's `actor`, the name of rows that give none; a 400 naming the field when it is bad. */
function defaultActorOf(body: SyncBody): string {
  if (body.actor === undefined) return DEFAULT_SYNC_ACTOR;
  const parsed = parseName(body.actor);
  if (parsed === undefined) {
    throw new ApiError('invalid_field', {
      field: 'actor',
      detail:
        'actor must be a non-blank name of at most 200 characters, without NUL characters or lone surrogates',
    });
  }
  return parsed;
}

/** Every row checked; a public reply only where the institution's admins turned replies on. */
async function validatedRows(db: Queryable, caller: SyncCaller, body: SyncBody): Promise<RowValidation[]> {
  const defaultActor = defaultActorOf(body);
  const validated = body.updates.map((raw) => validateRow(raw, defaultActor));
  // A public reply reaches the student: only where the institution's admins turned it on.
  if (!validated.some((v) => v.ok && v.row.action === 'reply')) return validated;
  if (await selectHelpSyncReplies(db, caller.institutionId)) return validated;
  return validated.map((v) =>
    v.ok && v.row.action === 'reply'
      ? { ok: false, helpRequestId: v.row.helpRequestId, error: 'replies_not_enabled' as const }
      : v,
  );
}

/**
 * Mirrors a batch of external ticket changes onto the institution's help requests (spec 4.3):
 * one result per update row, in their order.
 */
export async function syncHelpRequests(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  caller: SyncCaller,
  body: SyncBody,
): Promise<{ results: SyncResult[] }> {
  checkBatchSize('helpSync', 'updates', body.updates);
  const validated = await validatedRows(db, caller, body);
  // Another institution named with this secret: every row is not_found (spec 4.3).
  if (body.institution !== caller.slug) {
    return {
      results: validated.map((v) => failed(v.ok ? v.row.helpRequestId : v.helpRequestId, 'not_found')),
    };
  }
  const results: SyncResult[] = validated.map((v) =>
    v.ok ? failed(v.row.helpRequestId, 'not_found') : failed(v.helpRequestId, v.error),
  );
  const valid = validated.flatMap((v, position) => (v.ok ? [{ row: v.row, position }] : []));
  if (valid.length === 0) return { results };

  const now = clock.now();
  await db.transaction(async (tx) => {
    const ids = [...new Set(valid.map((v) => v.row.helpRequestId))];
    const found = await lockRequests(tx, caller.institutionId, ids);
    const groups = new Map<string, Group>();
    for (const { row, position } of valid) {
      const request = found.get(row.helpRequestId);
      if (!request) continue; // stays not_found (absent, or another institution's)
      let group = groups.get(request.id);
      if (!group) {
        group = { row: request, state: syncState(request), rows: [], entries: [], events: [] };
        groups.set(request.id, group);
      }
      group.rows.push({ row, position });
      results[position] = applyToGroup(caller.institutionId, group, row, now, now.toISOString());
    }
    const touched = [...groups.values()].filter((g) => g.entries.length > 0);
    if (touched.length > 0)
      await writeGroups({ tx, institutionId: caller.institutionId, now, results }, touched);
  });
  return { results };
}

/** One sync's write: its transaction, institution, time, and the results its rows set. */
interface Writing {
  tx: Queryable;
  institutionId: string;
  now: Date;
  results: SyncResult[];
}

/** Writes the groups in a savepoint; false (and nothing written) when the write fails. */
function tryWrite(w: Writing, part: Group[]): Promise<boolean> {
  return inSavepoint(w.tx, 'help_sync_write', () => write(w.tx, w.institutionId, part, w.now));
}

/**
 * One write for everything; if it fails, bisect in savepoints down to the requests whose own
 * write fails, then replay their rows one by one.
 */
async function writeGroups(w: Writing, part: Group[]): Promise<void> {
  if (await tryWrite(w, part)) return;
  if (part.length > 1) {
    const middle = Math.ceil(part.length / 2);
    await writeGroups(w, part.slice(0, middle));
    await writeGroups(w, part.slice(middle));
    return;
  }
  await replay(w, part[0]);
}

/**
 * Replays the rows of one request whose write failed, one row per savepoint, from its locked
 * state: each row succeeds or fails on its own (spec 4.3 rule 1).
 */
async function replay(w: Writing, broken: Group): Promise<void> {
  let state = syncState(broken.row);
  for (const { row, position } of broken.rows) {
    const single: Group = {
      row: { ...broken.row, version: state.version },
      state,
      rows: [{ row, position }],
      entries: [],
      events: [],
    };
    const result = applyToGroup(w.institutionId, single, row, w.now, w.now.toISOString());
    if (single.entries.length === 0 || (await tryWrite(w, [single]))) {
      w.results[position] = result;
      state = single.state;
    } else {
      w.results[position] = failed(result.help_request_id, 'update_failed');
    }
  }
}

/** Applies one row to its request's running state; collects the timeline entries and event. */
function applyToGroup(
  institutionId: string,
  group: Group,
  row: ValidRow,
  now: Date,
  nowIso: string,
): SyncResult {
  const before = group.state;
  const outcome = applyRow(before, row, now);
  const base = { help_request_id: group.row.id, kind: 'audit' as const, actor: row.actor };
  if (outcome.superseded) {
    // The attempt is recorded; when it stamped a new external_ref, this entry is that change.
    group.entries.push({
      ...base,
      action: `${row.action}_superseded`,
      origin: 'integration',
      from_status: before.status,
      to_status: before.status,
      external_ref: row.externalRef ?? null,
      version: outcome.state.version,
      created_at: nowIso,
    });
  }
  if (outcome.changed && row.action === 'reply') {
    applyReply(institutionId, group, row, outcome.state, now, nowIso);
  } else if (outcome.changed) {
    const after = outcome.state;
    if (!outcome.superseded) {
      group.entries.push({
        ...base,
        action: row.action,
        origin: 'integration',
        from_status: before.status,
        to_status: after.status,
        external_ref: row.externalRef ?? null,
        version: after.version,
        created_at: nowIso,
      });
    }
    if (outcome.note !== undefined) {
      group.entries.push({
        ...base,
        kind: 'note',
        action: row.action,
        origin: 'integration',
        note: outcome.note,
        external_ref: row.externalRef ?? null,
        version: after.version,
        created_at: nowIso,
      });
    }
    const data = eventData(
      {
        id: group.row.id,
        status: after.status,
        priority: group.row.priority,
        external_ref: after.externalRef,
        assigned_to: group.row.assigned_to,
        assigned_to_id: group.row.assigned_to_id,
        version: after.version,
      },
      'integration',
      row.actor,
      now,
    );
    group.events.push({
      institutionId,
      type: 'help_request.updated',
      helpRequestId: group.row.id,
      data,
      occurredAt: now,
    });
    group.state = after;
  }
  const state = group.state;
  return {
    help_request_id: group.row.id,
    ok: true,
    status: state.status,
    changed: outcome.changed,
    ...(state.externalRef !== null ? { external_ref: state.externalRef } : {}),
    ...(outcome.superseded ? { superseded: true as const } : {}),
  };
}

/**
 * A public reply from the help desk: one timeline entry of kind `reply` (read by the student), a
 * help_request.updated event and a help_request.reply event carrying the words, as a staff reply
 * records them (./conversation.ts).
 */
function applyReply(
  institutionId: string,
  group: Group,
  row: ValidRow,
  after: SyncState,
  now: Date,
  nowIso: string,
): void {
  const id = randomUUID();
  const text = row.note ?? '';
  group.entries.push({
    id,
    help_request_id: group.row.id,
    kind: 'reply',
    action: 'reply',
    actor: row.actor,
    origin: 'integration',
    note: text,
    external_ref: row.externalRef ?? null,
    version: after.version,
    created_at: nowIso,
  });
  const next: HelpRequestRow = {
    ...group.row,
    status: after.status,
    external_ref: after.externalRef,
    resolved_at: after.resolvedAt,
    version: after.version,
  };
  const base = { institutionId, helpRequestId: group.row.id, occurredAt: now };
  group.events.push(
    { ...base, type: 'help_request.updated', data: eventData(next, 'integration', row.actor, now) },
    {
      ...base,
      type: 'help_request.reply',
      data: messageEventData(next, { id, kind: 'reply', text, actor: row.actor, origin: 'integration' }, now),
    },
  );
  group.state = after;
}
