// View models of the notification pages, pure: the people with what they are told, the recent
// notifications in words, and the state of email. Tested beside this file.

import type { Reason, Rule } from '../../../domain/notifications/email.ts';
import type { EmailStatus } from '../../../domain/notifications/email-status.ts';
import type { OutboxRow, PersonSettings } from '../../../domain/notifications/settings.ts';

export const reasonWords: Record<Reason, string> = {
  crisis: 'New crisis request',
  new: 'New request',
  assigned: 'Assigned to them',
  student_message: 'The student wrote',
  escalation: 'Crisis request not picked up (escalation)',
  reply: 'Staff replied (to the student)',
  status: 'Status changed (to the student)',
  invited: 'Invitation to the console',
};

/** The rule that made an email, as the admins read it (the email states it to its reader). */
export const ruleWords: Record<Rule, string> = {
  crisis_recipient: 'an admin chose them to be told of crisis requests',
  any_new: 'they asked to be told of every new request',
  assigned_to_me: 'they asked to be told of requests assigned to them',
  assignee: 'the request is assigned to them',
  requester: 'they raised the request: a student is told of each reply and change of status',
  invited: 'an admin invited them to the console',
};

/**
 * Every kind of email the platform sends, in words: who receives it, the rule that makes it, and
 * when it is not sent. The Notifications page lists them above the recent emails.
 */
export const EMAIL_KINDS: { what: string; who: string; rule: string; notSent: string }[] = [
  {
    what: 'A new crisis request',
    who: 'The people ticked below, and anyone who asked for every new request',
    rule: 'Chosen by the admins on this page, or asked for by the person on their own notifications page',
    notSent: 'When email is off, or to a person removed since',
  },
  {
    what: 'A new request (any priority)',
    who: 'Anyone who asked for every new request',
    rule: 'Asked for by the person on their own notifications page',
    notSent: 'When email is off, or to a person removed since',
  },
  {
    what: 'A request assigned to someone',
    who: 'The person it is assigned to, when they asked for it',
    rule: 'Asked for by the person; assigning a request to yourself sends nothing',
    notSent: 'When email is off, or when they assigned it to themselves',
  },
  {
    what: 'The student wrote on their request',
    who: 'The person it is assigned to; when it is assigned to no one, the people told of new requests of its priority',
    rule: 'The assignment, else the same choices as for a new request',
    notSent: 'When email is off',
  },
  {
    what: 'A crisis request nobody picked up (escalation)',
    who: 'The escalation list, or every admin when no list is chosen',
    rule: 'Not assigned, answered or moved out of New within the escalation window (Response targets)',
    notSent: 'When email is off; never twice for one request',
  },
  {
    what: 'Staff replied to the student',
    who: 'The student who raised the request, at the address the roster holds',
    rule: 'Every reply from staff or the help desk; internal notes are never emailed',
    notSent:
      'When email is off, or the request has no student (erased): the student sees the reply at their next visit, the request marked New',
  },
  {
    what: 'The status of the request changed',
    who: 'The student who raised the request',
    rule: 'Every change of status by staff or the help desk',
    notSent: 'When email is off, or the request has no student: the student sees it at their next visit',
  },
  {
    what: 'An invitation',
    who: 'A person just invited to the institution (People), with the sign-in link',
    rule: 'An admin invited them',
    notSent: 'When email is off, or when the invitation was not asked for (the API’s send_invitation false)',
  },
];

export const stateWords: Record<OutboxRow['state'], string> = {
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

export function notificationRow(n: OutboxRow, base: string, time: (value: unknown) => string) {
  const retrying = n.state === 'pending' && n.attempts > 0;
  const detail =
    n.state === 'sent' || n.state === 'failed' || n.state === 'skipped'
      ? time(n.finished_at)
      : retrying
        ? `next try ${time(n.next_attempt_at)}`
        : '';
  return {
    queued: time(n.created_at),
    name: n.name ?? 'A student erased since',
    email: n.email ?? '',
    student: n.recipient === 'student',
    reason: reasonWords[n.reason],
    rule:
      n.reason === 'escalation'
        ? 'nobody picked the crisis request up within the escalation window'
        : ruleWords[n.rule],
    crisis: n.reason === 'crisis',
    link: n.help_request_id ? `${base}/inbox/${n.help_request_id}` : undefined,
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

/** The state filter's links, and what the page says of a state it does not know (`requested`). */
export function stateFilters(requested: string, filter: string, base: string) {
  return {
    filters: STATE_FILTERS.map(([value, label]) => ({
      label,
      href: `${base}/notifications${value ? `?state=${value}` : ''}#recent`,
      current: value === filter,
    })),
    filtered: filter !== '',
    filterError:
      requested && !filter
        ? `There is no state “${requested.slice(0, 20)}”: showing every state. Choose one of the links.`
        : undefined,
  };
}
