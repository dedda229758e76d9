// Who is told what: the admins' choice of crisis recipients, each person's own choices, and the
// recent outbox for the console. Plain functions taking the dependencies they use.
//
// Cost: every read is one query; replacing the crisis recipients is one transaction of two
// statements (check the people, write the settings) whatever their number.
import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Deps } from '../deps.ts';
import { defaultRule, type Rule } from './email.ts';
import {
  type NotificationRow,
  type OutboxRecord,
  type PersonSettings,
  replaceCrisisRecipients,
  selectPeopleSettings,
  selectPersonSettings,
  selectRecent,
  selectRecentOutbox,
  upsertOwnSettings,
} from './queries.ts';

export type { NotificationRow, PersonSettings };

/** An outbox row with its rule: a row queued before rules were recorded takes its reason's. */
export interface OutboxRow extends Omit<OutboxRecord, 'rule'> {
  rule: Rule;
}

/** Most crisis recipients an institution may choose (each one is an email per crisis request). */
export const MAX_CRISIS_RECIPIENTS = 100;
export const NOTIFICATION_STATES = ['pending', 'sent', 'failed', 'skipped'] as const;

/** A person's own settings as the API and the console show them. */
export interface OwnSettings {
  /** Chosen by the institution's admins. */
  crisis: boolean;
  any_new_request: boolean;
  assigned_to_me: boolean;
}

export function peopleSettings(db: Queryable, institutionId: string): Promise<PersonSettings[]> {
  return selectPeopleSettings(db, institutionId);
}

/**
 * Makes exactly these people (ids of current staff and admins of the institution) its crisis
 * recipients. The list is checked whole, so a bad entry is a 400 naming it
 * (`crisis_recipients[i]`) and nothing changes. Duplicates count once.
 */
export async function setCrisisRecipients(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  ids: unknown,
): Promise<PersonSettings[]> {
  if (!Array.isArray(ids))
    throw new ApiError('invalid_field', {
      field: 'crisis_recipients',
      detail: 'must be a list of person ids',
    });
  const unique = [...new Set(ids.map((id) => (typeof id === 'string' ? id.toLowerCase() : id)))];
  if (unique.length > MAX_CRISIS_RECIPIENTS)
    throw new ApiError('invalid_field', {
      field: 'crisis_recipients',
      detail: `at most ${MAX_CRISIS_RECIPIENTS} people`,
    });
  return db.transaction(async (tx) => {
    const people = await selectPeopleSettings(tx, institutionId);
    const known = new Set(people.map((p) => p.person_id));
    ids.forEach((id, i) => {
      if (typeof id !== 'string' || !uuidPattern.test(id) || !known.has(id.toLowerCase()))
        throw new ApiError('invalid_field', {
          field: `crisis_recipients[${i}]`,
          detail: `Crisis recipient ${i + 1} of the list is not a current staff member or admin of this institution`,
        });
    });
    await replaceCrisisRecipients(tx, institutionId, unique as string[], clock.now());
    return selectPeopleSettings(tx, institutionId);
  });
}

const notAPerson = () =>
  new ApiError('not_a_person', {
    detail: "notification settings are a staff member's or admin's own; the operator has none",
  });

function own(settings: PersonSettings): OwnSettings {
  return { crisis: settings.crisis, any_new_request: settings.any_new, assigned_to_me: settings.assigned };
}

/** A person's own settings; 403 for anyone who is not a current person of the institution. */
export async function ownSettings(db: Queryable, institutionId: string, personId: string | undefined) {
  const settings = personId ? await selectPersonSettings(db, institutionId, personId) : undefined;
  if (!settings) throw notAPerson();
  return own(settings);
}

/** Sets a person's own choices; the crisis setting stays the admins'. */
export async function setOwnSettings(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  personId: string | undefined,
  choice: { any_new_request: boolean; assigned_to_me: boolean },
): Promise<OwnSettings> {
  return db.transaction(async (tx) => {
    const settings = personId ? await selectPersonSettings(tx, institutionId, personId) : undefined;
    if (!settings || !personId) throw notAPerson();
    await upsertOwnSettings(
      tx,
      institutionId,
      personId,
      { any_new: choice.any_new_request, assigned: choice.assigned_to_me },
      clock.now(),
    );
    return { crisis: settings.crisis, ...choice };
  });
}

/** How many of the newest rows to read, and of which state. */
export interface RecentQuery {
  limit?: number;
  state?: string;
}

/** A listing's query checked: a known state or none, and a limit of 1 to 200 (50 unless given). */
function recentQuery(options: RecentQuery): { limit: number; state: string | undefined } {
  const state = options.state;
  if (state !== undefined && !(NOTIFICATION_STATES as readonly string[]).includes(state))
    throw new ApiError('invalid_field', {
      field: 'state',
      detail: `state must be one of ${NOTIFICATION_STATES.join(', ')}`,
    });
  return { limit: Math.min(Math.max(options.limit ?? 50, 1), 200), state };
}

/** The institution's newest notifications, at most `limit` (1 to 200), optionally in one state. */
export function recentNotifications(
  db: Queryable,
  institutionId: string,
  options: RecentQuery = {},
): Promise<NotificationRow[]> {
  return selectRecent(db, institutionId, recentQuery(options));
}

/**
 * The institution's newest emails of every kind for the console (emails to staff and admins,
 * to students, invitations), at most `limit`, optionally in one state.
 */
export async function recentOutbox(
  db: Queryable,
  institutionId: string,
  options: RecentQuery = {},
): Promise<OutboxRow[]> {
  const rows = await selectRecentOutbox(db, institutionId, recentQuery(options));
  return rows.map((row) => ({ ...row, rule: row.rule ?? defaultRule[row.reason] }));
}
