// The inbox's working rules, pure: first-response targets per priority, how long a request has
// waited and whether it missed its target, and the escalation window of crisis requests
// (docs/console.md, "Inbox"; docs/notifications.md, "Escalation"). No I/O here.
import type { Priority } from '../helpdesk/rules.ts';

/** An institution's first-response targets (minutes, per priority) and escalation window (minutes). */
export interface InboxSettings {
  targets: Record<Priority, number>;
  escalation_minutes: number;
}

/** The defaults, the same as the columns' of inbox_settings (migration 0087). */
export const defaultInboxSettings: InboxSettings = {
  targets: { crisis: 15, high: 240, normal: 2880, low: 7200 },
  escalation_minutes: 15,
};

/** Limits of a setting: a target of at most 30 days, an escalation window of at most a day. */
export const TARGET_MAX_MINUTES = 43_200;
export const ESCALATION_MAX_MINUTES = 1_440;

/** Where a request stands against its first-response target. */
export interface ResponseClock {
  /** Minutes from being raised to the first response, or to now while there is none. */
  waited_minutes: number;
  target_minutes: number;
  /** Whether it is still waiting for a first response. */
  waiting: boolean;
  /** Past its target: still waiting beyond it, or first answered after it. */
  breached: boolean;
  /** When the target falls (or fell). */
  due_at: Date;
}

const MINUTE = 60_000;

/** Where one request stands: waiting or answered, and whether the target was missed. */
export function responseClock(
  request: { priority: Priority; created_at: Date | string; first_response_at: Date | string | null },
  settings: InboxSettings,
  now: Date,
): ResponseClock {
  const target = settings.targets[request.priority] ?? defaultInboxSettings.targets[request.priority];
  const created = new Date(request.created_at).getTime();
  const answered = request.first_response_at ? new Date(request.first_response_at).getTime() : undefined;
  const waited = Math.max(0, Math.floor(((answered ?? now.getTime()) - created) / MINUTE));
  return {
    waited_minutes: waited,
    target_minutes: target,
    waiting: answered === undefined,
    breached: ((answered ?? now.getTime()) - created) / MINUTE > target,
    due_at: new Date(created + target * MINUTE),
  };
}

/** A duration in words a person reads at a glance: "12 min", "3 h 5 min", "2 d 4 h". */
export function durationWords(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 1440) {
    const m = minutes % 60;
    return m ? `${Math.floor(minutes / 60)} h ${m} min` : `${minutes / 60} h`;
  }
  const h = Math.floor((minutes % 1440) / 60);
  return h ? `${Math.floor(minutes / 1440)} d ${h} h` : `${Math.floor(minutes / 1440)} d`;
}

/** An escalated crisis request nobody has picked up yet (the console's banner, the health page). */
export interface OpenEscalation {
  help_request_id: string;
  created_at: Date;
  escalated_at: Date;
}

/** The banner's escalations: the oldest few, and how many there are (counted up to a bound). */
export interface OpenEscalations {
  /** How many wait, counted up to ESCALATIONS_COUNTED; `more` when there are more than that. */
  total: number;
  more: boolean;
  requests: OpenEscalation[];
}

/** The banner and the health page count waiting escalations up to this many ("more than 100"). */
export const ESCALATIONS_COUNTED = 100;

/** What one escalation round did. */
export interface EscalationRound {
  claimed: number;
  escalated: number;
}
