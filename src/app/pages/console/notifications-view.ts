// View models of the notification pages, pure: the people with what they are told, the recent
// notifications in words, and the state of email. Tested beside this file.
import type { EmailStatus } from '../../../domain/notifications/service.ts';
import type { NotificationRow, PersonSettings } from '../../../domain/notifications/settings.ts';

export const reasonWords: Record<NotificationRow['reason'], string> = {
  crisis: 'New crisis request',
  new: 'New request',
  assigned: 'Assigned to them',
  student_message: 'The student wrote',
  escalation: 'Crisis request not picked up (escalation)',
};

export const stateWords: Record<NotificationRow['state'], string> = {
  pending: 'Waiting to be sent',
  sent: 'Sent',
  failed: 'Failed',
  skipped: 'Not sent',
};

/** What the pages say about email being on or off. */
export function emailView(email: EmailStatus) {
  return email.enabled
    ? {
        on: true,
        summary: `Emails are sent from ${email.from} through ${email.server}.`,
        // What a staff member needs to know (to find the emails), without the server's address.
        from: `Emails come from ${email.from}.`,
      }
    : {
        on: false,
        summary:
          'Notifications are off: this service has no mail server configured (SMTP_URL), so no email is sent. ' +
          'Requests that would have been notified are listed below as not sent.',
        from: '',
      };
}

export function personRow(p: PersonSettings) {
  const own = [p.any_new ? 'every new request' : '', p.assigned ? 'requests assigned to them' : ''].filter(
    Boolean,
  );
  return {
    id: p.person_id,
    name: p.name,
    email: p.email,
    roles: p.roles.join(', '),
    crisis: p.crisis,
    own: own.length > 0 ? `Also asked for ${own.join(' and ')}` : '',
  };
}

export function notificationRow(n: NotificationRow, base: string, time: (value: unknown) => string) {
  const retrying = n.state === 'pending' && n.attempts > 0;
  const detail =
    n.state === 'sent' || n.state === 'failed' || n.state === 'skipped'
      ? time(n.finished_at)
      : retrying
        ? `next try ${time(n.next_attempt_at)}`
        : '';
  return {
    queued: time(n.created_at),
    name: n.person_name,
    email: n.person_email,
    reason: reasonWords[n.reason],
    crisis: n.reason === 'crisis',
    link: `${base}/inbox/${n.help_request_id}`,
    state: retrying ? 'Retrying' : stateWords[n.state],
    stateDetail: detail,
    stateClass: n.state,
    attempts: n.attempts,
    problem: n.last_error ?? '',
  };
}

export const STATE_FILTERS = [
  ['', 'All'],
  ['failed', 'Failed'],
  ['pending', 'Waiting'],
  ['sent', 'Sent'],
  ['skipped', 'Not sent'],
] as const;
