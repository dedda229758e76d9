// The inbox's settings and escalations bound to the database and clock, as every caller uses them
// (`services.inbox.<name>`): the console, the admin API and the escalation worker.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { openEscalations } from './escalation.ts';
import { escalationCandidates, inboxSettings, type SettingsInput, saveInboxSettings } from './settings.ts';

export function createInboxService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /** The institution's targets and escalation window (defaults until saved). */
    settings: (institutionId: string) => inboxSettings(db, institutionId),
    /** Saves the targets and window, and the escalation list when given. */
    save: (institutionId: string, input: SettingsInput) =>
      saveInboxSettings({ db, now: clock.now() }, institutionId, input),
    /** Current staff and admins with their place on the escalation list. */
    escalationCandidates: (institutionId: string) => escalationCandidates(db, institutionId),
    /** Escalated crisis requests nobody has picked up yet (oldest first, at most `limit`). */
    openEscalations: (institutionId: string, limit?: number) => openEscalations(db, institutionId, limit),
    /** The clock's now, for pages that show time waiting. */
    now: () => clock.now(),
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
