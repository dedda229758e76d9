// The conversation of a help request: a staff member's reply to the student, and the student's
// answer. Each is a timeline entry (kind `reply` or `student_message`, the words in `note`) written
// like any staff change: the request row is locked, its version bumped, the entry appended and
// events recorded in one transaction: help_request.updated (as for a note, without the words) and
// help_request.reply or help_request.student_message carrying the words, which reach only webhook
// endpoints that subscribe to them (migration 0080). The emails that follow (the student told of a
// reply, the assignee of an answer) are queued by a trigger on those events, in the same
// transaction.
//
// Limits: a reply is at most 5,000 characters and a student's answer 2,000; a request takes at most
// 30 replies and 20 answers an hour (a flood is refused with 429 rate_limited, counted from the
// timeline itself, so every instance agrees).
//
// Cost: one transaction of five statements (lock, count, update, timeline, events).
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { isStorableText } from '../../lib/text.ts';
import type { Deps } from '../deps.ts';
import { type EventOrigin, recordEvents } from '../events/record.ts';
import { appendTimeline, countRecentEntries } from './queries.ts';
import { helpRequestNotFound, helpRequestResolved } from './requests.ts';
import { MAX_REPLY, MAX_STUDENT_MESSAGE } from './rules.ts';
import type { HelpRequestChange } from './schemas.ts';
import { lockRequest, writeChangedRequest } from './staff-changes.ts';
import { eventData, type HelpRequestRow, publicRequest } from './store.ts';

export { MAX_REPLY, MAX_STUDENT_MESSAGE };

/** Most replies, and most student answers, a request takes in an hour. */
export const conversationLimits = { reply: 30, student_message: 20, windowMs: 3_600_000 } as const;

export type MessageKind = 'reply' | 'student_message';

export interface Message {
  kind: MessageKind;
  text: string;
  /** Who wrote it: the staff member, the help desk's actor, or the student. */
  actor: string;
  origin: EventOrigin;
}

/** The event a message announces, besides help_request.updated. */
export const messageEventType = {
  reply: 'help_request.reply',
  student_message: 'help_request.student_message',
} as const;

/** A refusal of a request that took its hour's share of messages. */
export function conversationRateLimited(kind: MessageKind): ApiError {
  const max = conversationLimits[kind];
  return new ApiError('rate_limited', {
    detail:
      kind === 'reply'
        ? `this request took ${max} replies in the last hour; wait before replying again`
        : `you sent ${max} messages on this request in the last hour; wait a little before sending another`,
    max,
  });
}

/** Refuses a message that is blank, too long, or not storable text (field `text`). */
export function checkMessageText(kind: MessageKind, text: string): void {
  const max = kind === 'reply' ? MAX_REPLY : MAX_STUDENT_MESSAGE;
  if (text.trim() !== '' && text.length <= max && isStorableText(text)) return;
  throw new ApiError('invalid_field', {
    field: 'text',
    detail:
      text.trim() === ''
        ? 'write the message before sending it'
        : `a message is at most ${max} characters of text (this one is ${text.length})`,
  });
}

/** The `data` of a message's own event: the request's event data and the message itself. */
export function messageEventData(next: HelpRequestRow, message: Message & { id: string }, now: Date) {
  return {
    ...eventData(next, message.origin, message.actor, now),
    message: { id: message.id, kind: message.kind, text: message.text },
  };
}

/**
 * Appends a message to the request (which must be of the institution; `guard` may refuse it from
 * its locked row, as the student's answer does for another student's request).
 */
export async function addMessage(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  message: Message,
  guard: (row: HelpRequestRow) => void = () => {},
): Promise<HelpRequestChange & { message_id: string }> {
  if (!uuidPattern.test(id)) throw helpRequestNotFound();
  checkMessageText(message.kind, message.text);
  const now = clock.now();
  return db.transaction(async (tx) => {
    const current = await lockRequest(tx, institutionId, id);
    guard(current);
    const since = new Date(now.getTime() - conversationLimits.windowMs);
    if ((await countRecentEntries(tx, current.id, message.kind, since)) >= conversationLimits[message.kind]) {
      throw conversationRateLimited(message.kind);
    }
    const next = { ...current, version: current.version + 1, updated_at: now };
    await writeChangedRequest(tx, current, next, now);
    const messageId = randomUUID();
    await appendTimeline(tx, institutionId, [
      {
        id: messageId,
        help_request_id: current.id,
        kind: message.kind,
        action: message.kind,
        actor: message.actor,
        origin: message.origin,
        note: message.text,
        version: next.version,
        created_at: now.toISOString(),
      },
    ]);
    const base = { institutionId, helpRequestId: current.id, occurredAt: now };
    await recordEvents(tx, [
      { ...base, type: 'help_request.updated', data: eventData(next, message.origin, message.actor, now) },
      {
        ...base,
        type: messageEventType[message.kind],
        data: messageEventData(next, { ...message, id: messageId }, now),
      },
    ]);
    return { request: publicRequest(next), changed: true, message_id: messageId };
  });
}

/** A staff member replies to the student (the console and the admin API). */
export function addReply(
  deps: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  input: { text: string; staff: string },
) {
  return addMessage(deps, institutionId, id, {
    kind: 'reply',
    text: input.text,
    actor: input.staff,
    origin: 'platform',
  });
}

/**
 * The student answers on their own request: another student's request is 404, a resolved one
 * 409 help_request_resolved (they ask again instead).
 */
export function addStudentMessage(
  deps: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  input: { text: string; studentId: string; actor: string },
) {
  const message: Message = {
    kind: 'student_message',
    text: input.text,
    actor: input.actor,
    origin: 'platform',
  };
  return addMessage(deps, institutionId, id, message, (row) => {
    if (row.student_id !== input.studentId) throw helpRequestNotFound();
    if (row.status === 'resolved') throw helpRequestResolved();
  });
}
