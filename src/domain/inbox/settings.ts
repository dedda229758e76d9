// An institution's inbox settings, set by its admins: the first-response target of each priority,
// the escalation window of crisis requests, and the escalation list (who is emailed when a crisis
// request waits past the window; nobody chosen means every admin). Every field is checked at once,
// so a form or an API call learns of every problem in one answer.
import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Deps } from '../deps.ts';
import { priorities } from '../helpdesk/rules.ts';
import {
  defaultInboxSettings,
  ESCALATION_MAX_MINUTES,
  type InboxSettings,
  TARGET_MAX_MINUTES,
} from './model.ts';
import {
  type EscalationCandidate,
  replaceEscalationList,
  selectEscalationCandidates,
  selectSettings,
  upsertSettings,
} from './queries.ts';

export type { EscalationCandidate };

/** The institution's settings (the defaults until its admins save their own). */
export async function inboxSettings(db: Queryable, institutionId: string): Promise<InboxSettings> {
  return (await selectSettings(db, institutionId)) ?? defaultInboxSettings;
}

/** The settings as a form or a body gives them: minutes per priority and the escalation window. */
export interface SettingsInput {
  targets: Record<string, unknown>;
  escalation_minutes: unknown;
  /** Person ids; omitted leaves the list as it is. */
  escalation_list?: unknown;
}

export interface SettingsProblem {
  field: string;
  detail: string;
}

const wholeMinutes = (value: unknown, max: number): number | undefined => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= max ? n : undefined;
};

/** Every problem of the input at once (empty when it can be saved), and the settings it stands for. */
export function checkSettings(input: SettingsInput): {
  problems: SettingsProblem[];
  settings: InboxSettings;
} {
  const problems: SettingsProblem[] = [];
  const settings: InboxSettings = { targets: { ...defaultInboxSettings.targets }, escalation_minutes: 15 };
  for (const priority of priorities) {
    const minutes = wholeMinutes(input.targets?.[priority], TARGET_MAX_MINUTES);
    if (minutes === undefined)
      problems.push({
        field: `targets.${priority}`,
        detail: `the ${priority} target must be a whole number of minutes from 1 to ${TARGET_MAX_MINUTES} (30 days)`,
      });
    else settings.targets[priority] = minutes;
  }
  const window = wholeMinutes(input.escalation_minutes, ESCALATION_MAX_MINUTES);
  if (window === undefined)
    problems.push({
      field: 'escalation_minutes',
      detail: `the escalation window must be a whole number of minutes from 1 to ${ESCALATION_MAX_MINUTES} (a day)`,
    });
  else settings.escalation_minutes = window;
  return { problems, settings };
}

/**
 * Saves the settings, and the escalation list when given: a 400 naming the first problem
 * (`invalid_field` with `field`) and nothing saved when any field is wrong. The list must name
 * current staff members and admins of the institution.
 */
export async function saveInboxSettings(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  input: SettingsInput,
): Promise<InboxSettings> {
  const now = clock.now();
  const { problems, settings } = checkSettings(input);
  if (problems.length) throw new ApiError('invalid_field', { ...problems[0], problems });
  const list = input.escalation_list;
  if (list !== undefined && !Array.isArray(list))
    throw new ApiError('invalid_field', { field: 'escalation_list', detail: 'must be a list of person ids' });
  return db.transaction(async (tx) => {
    if (Array.isArray(list)) {
      const known = new Set((await selectEscalationCandidates(tx, institutionId)).map((p) => p.person_id));
      list.forEach((id, i) => {
        if (typeof id !== 'string' || !uuidPattern.test(id) || !known.has(id.toLowerCase()))
          throw new ApiError('invalid_field', {
            field: `escalation_list[${i}]`,
            detail: `Person ${i + 1} of the escalation list is not a current staff member or admin of this institution`,
          });
      });
      const ids = [...new Set(list.map((id) => String(id).toLowerCase()))];
      await replaceEscalationList(tx, institutionId, ids, now);
    }
    await upsertSettings(tx, institutionId, settings, now);
    return settings;
  });
}

/** The institution's staff and admins with their place on the escalation list. */
export function escalationCandidates(db: Queryable, institutionId: string): Promise<EscalationCandidate[]> {
  return selectEscalationCandidates(db, institutionId);
}
