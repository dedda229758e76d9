// Notifications as a service: the settings and the outbox's recent rows bound to the database and
// clock, and whether email is on (SMTP_URL set). The worker (worker.ts) is built by
// src/services.ts beside the other workers.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  ownSettings,
  peopleSettings,
  recentNotifications,
  recentOutbox,
  setCrisisRecipients,
  setOwnSettings,
} from './settings.ts';

export interface EmailStatus {
  /** Whether notification emails are sent: SMTP_URL is set. */
  enabled: boolean;
  /** The From address, when enabled. */
  from: string | null;
  /** The SMTP server's host and port (never its credentials), when enabled. */
  server: string | null;
}

export function emailStatusOf(smtpUrl: string | undefined, from: string): EmailStatus {
  if (!smtpUrl) return { enabled: false, from: null, server: null };
  const url = new URL(smtpUrl);
  return { enabled: true, from, server: `${url.protocol}//${url.host}` };
}

export function createNotificationsService(deps: { db: Db; clock: Clock; email: EmailStatus }) {
  const { db, clock } = deps;
  return {
    email: deps.email,
    people: (institutionId: string) => peopleSettings(db, institutionId),
    setCrisisRecipients: (institutionId: string, ids: unknown) =>
      setCrisisRecipients({ db, now: clock.now() }, institutionId, ids),
    own: (institutionId: string, personId: string | undefined) => ownSettings(db, institutionId, personId),
    setOwn: (
      institutionId: string,
      personId: string | undefined,
      choice: { any_new_request: boolean; assigned_to_me: boolean },
    ) => setOwnSettings({ db, now: clock.now() }, institutionId, personId, choice),
    recent: (institutionId: string, options?: { limit?: number; state?: string }) =>
      recentNotifications(db, institutionId, options),
    /** Every kind of email (students' and invitations too), for the console's Notifications page. */
    outbox: (institutionId: string, options?: { limit?: number; state?: string }) =>
      recentOutbox(db, institutionId, options),
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
