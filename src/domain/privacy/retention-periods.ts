// Retention periods (docs/privacy.md, "How long"): each institution may set each period within a
// floor and a ceiling; an unset period keeps the default. Pure rules, tested beside.
import { ApiError } from '../../errors.ts';

export const retentionKinds = [
  'resolved_requests',
  'departed_students',
  'run_errors',
  'webhook_bodies',
  'notifications',
  'access_log',
] as const;
export type RetentionKind = (typeof retentionKinds)[number];

export interface PeriodRule {
  /** Days, when the institution sets nothing. */
  default: number;
  min: number;
  max: number;
  what: string;
}

export const periodRules: Record<RetentionKind, PeriodRule> = {
  resolved_requests: {
    default: 730,
    min: 30,
    max: 3650,
    what: 'Words of a help request (summary, notes, replies, event payloads), counted from its resolution',
  },
  departed_students: {
    default: 365,
    min: 30,
    max: 3650,
    what: 'A departed student, erased in full, counted from the departure',
  },
  run_errors: { default: 90, min: 7, max: 730, what: 'Row errors and warnings of push history' },
  webhook_bodies: {
    default: 30,
    min: 1,
    max: 365,
    what: 'Headers and bodies of webhook delivery attempts',
  },
  notifications: { default: 90, min: 7, max: 730, what: 'Sent or failed notification rows' },
  access_log: {
    default: 730,
    min: 180,
    max: 3650,
    what: 'Who opened a request, a student page or an export',
  },
};

export type RetentionSettings = Record<RetentionKind, number>;
export type StoredSettings = Partial<Record<RetentionKind, number | null>>;

/** The periods in force: the stored ones, the defaults for the rest. */
export function periodsOf(stored: StoredSettings | undefined): RetentionSettings {
  return Object.fromEntries(
    retentionKinds.map((kind) => [kind, stored?.[kind] ?? periodRules[kind].default]),
  ) as RetentionSettings;
}

/**
 * Checks a change: each given period an integer within its floor and ceiling, or null (back to
 * the default). Throws 400 invalid_field naming the first wrong one; unknown names are 400 too.
 */
export function checkSettings(input: Record<string, unknown>): StoredSettings {
  const out: StoredSettings = {};
  for (const [name, value] of Object.entries(input)) {
    const kind = name.replace(/_days$/, '') as RetentionKind;
    if (!name.endsWith('_days') || !retentionKinds.includes(kind)) {
      throw new ApiError('unknown_field', { field: name, detail: `unknown setting "${name}"` });
    }
    if (value === null) {
      out[kind] = null;
      continue;
    }
    const rule = periodRules[kind];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max) {
      throw new ApiError('invalid_field', {
        field: name,
        min: rule.min,
        max: rule.max,
        detail: `${name} must be a whole number of days from ${rule.min} to ${rule.max}`,
      });
    }
    out[kind] = value;
  }
  return out;
}

/** The cut-off of a period: what is older than this has passed its time. */
export function cutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}
