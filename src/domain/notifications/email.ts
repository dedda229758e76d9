// What a notification email says, pure. The decision (docs/notifications.md): an email is a nudge
// to open the console, not a copy of the request. It names the institution, the kind of request,
// its priority and when it was raised, and links to the request's page in the console, where
// signing in decides who may read it. It never carries the student's name or anything they wrote:
// mail is copied to phones, forwarded and kept by mail providers outside the institution's control,
// and a crisis request's text is the most sensitive thing the platform holds. The subject line,
// shown on lock screens, names only the kind of request and the institution. Emails to a student
// (a reply, a status change) say only that there is news and link to their request's page; an
// invitation links to the institution's sign-in. Every email states the rule that made it.

import { formatInZone } from '../../lib/time-zones.ts';

export type Reason =
  | 'crisis'
  | 'new'
  | 'assigned'
  | 'reply'
  | 'status'
  | 'student_message'
  | 'invited'
  | 'escalation';

/** The rule that made an email, which its "why you receive this" line states. */
export type Rule = 'crisis_recipient' | 'any_new' | 'assigned_to_me' | 'assignee' | 'requester' | 'invited';

export interface EmailFacts {
  /** The outbox row's id, which also makes the Message-ID (a resent email has the same one). */
  notificationId: string;
  reason: Reason;
  /** Why this person: derived for rows queued before rules were recorded (see queries.ts). */
  rule?: Rule;
  /** Null for an invitation. */
  helpRequestId: string | null;
  priority: string | null;
  requestCreatedAt: Date | null;
  institutionName: string;
  institutionSlug: string;
  timeZone: string;
  publicBaseUrl: string;
  /** An escalation's rule: its window, and whether it went to every admin for want of a list. */
  escalation?: { windowMinutes: number; toAdmins: boolean };
}

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

const priorityWords: Record<string, string> = {
  crisis: 'Crisis',
  high: 'Urgent',
  normal: 'Normal',
  low: 'Low',
};

/** One line, at most 100 characters: a name must not add header lines or flood a subject. */
function oneLine(value: string): string {
  const flat = value.replace(/[\r\n\t]+/g, ' ').trim();
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The rule stated when a row carries none: what the reason alone says (a row queued before rules
 * were recorded, migration 0080; the outbox page reads it too).
 */
export const defaultRule: Record<Reason, Rule> = {
  crisis: 'crisis_recipient',
  new: 'any_new',
  assigned: 'assigned_to_me',
  reply: 'requester',
  status: 'requester',
  student_message: 'assignee',
  invited: 'invited',
  // An escalation states its own rule (escalationWords): the window and who chose the recipient.
  escalation: 'crisis_recipient',
};

/** Why the person receives the email, one sentence per rule. */
function whyLine(rule: Rule, reason: Reason, institution: string): string {
  switch (rule) {
    case 'crisis_recipient':
      return reason === 'student_message'
        ? `You receive this because an admin of ${institution} chose you to be told of crisis requests, and the request is assigned to no one.`
        : `You receive this because an admin of ${institution} chose you to be told of crisis requests.`;
    case 'any_new':
      return reason === 'student_message'
        ? 'You receive this because you asked to be told of every new request, and the request is assigned to no one.'
        : 'You receive this because you asked to be told of every new request.';
    case 'assigned_to_me':
      return 'You receive this because you asked to be told of requests assigned to you.';
    case 'assignee':
      return 'You receive this because the request is assigned to you.';
    case 'requester':
      return `You receive this because you asked ${institution} for help. We never put what you or staff wrote in an email.`;
    case 'invited':
      return `You receive this because an admin of ${institution} invited you to its student support console.`;
  }
}

/** An email about a request goes to the student when it is news on their own request. */
const toStudent = (reason: Reason) => reason === 'reply' || reason === 'status';

type RequestReason = Exclude<Reason, 'escalation' | 'invited'>;

/** The subject of each email about a request. */
const requestSubjects: Record<RequestReason, (institution: string) => string> = {
  crisis: (institution) => `New crisis request at ${institution}`,
  assigned: (institution) => `A help request was assigned to you at ${institution}`,
  new: (institution) => `New help request at ${institution}`,
  student_message: (institution) => `A student wrote on a help request at ${institution}`,
  reply: (institution) => `Student support at ${institution} replied to your request`,
  status: (institution) => `Your help request at ${institution} was updated`,
};

/** The first sentence of each email about a request. */
const requestOpenings: Record<RequestReason, string> = {
  crisis: 'A student has raised a crisis request. Please open it now.',
  assigned: 'A help request has been assigned to you.',
  new: 'A student has raised a new help request.',
  student_message: 'A student has written on their help request.',
  reply: 'Student support has replied to your help request.',
  status: 'The status of your help request has changed.',
};

/**
 * The subject, first sentence and link of each kind of email; an escalation also states its own
 * rule (`why`), which names the institution's window and who chose the recipient.
 */
function frame(
  facts: Pick<EmailFacts, 'reason' | 'escalation'>,
  institution: string,
  base: string,
  slug: string,
  id: string | null,
): { subject: string; opening: string; link: string; why?: string } {
  const consoleLink = `${base}/console/${slug}/inbox/${id}`;
  if (facts.reason === 'escalation')
    return { ...escalationWords(facts.escalation, institution), link: consoleLink };
  if (facts.reason === 'invited')
    return {
      subject: `You are invited to ${institution}'s student support console`,
      opening: `You have been invited to the student support console of ${institution}. Sign in with your institution account:`,
      link: `${base}/auth/${slug}/sign-in`,
    };
  return {
    subject: requestSubjects[facts.reason](institution),
    opening: requestOpenings[facts.reason],
    link: toStudent(facts.reason) ? `${base}/app/requests/${id}#conversation` : consoleLink,
  };
}

/** The words of an escalation email, whose rule names the institution's window. */
function escalationWords(escalation: EmailFacts['escalation'], institution: string) {
  const minutes = escalation?.windowMinutes ?? 15;
  const rule = `a crisis request that nobody assigns, answers or moves out of New within ${minutes} minutes is escalated once`;
  return {
    subject: `Crisis request not picked up at ${institution}`,
    opening: `A crisis request has waited ${minutes} minutes without anyone picking it up. Please open it now.`,
    why: escalation?.toAdmins
      ? `You receive this because you are an admin of ${institution} and no escalation list is chosen: ${rule}.`
      : `You receive this because an admin of ${institution} put you on the escalation list: ${rule}.`,
  };
}

export function composeEmail(facts: EmailFacts): ComposedEmail {
  const institution = oneLine(facts.institutionName);
  const base = facts.publicBaseUrl.replace(/\/+$/, '');
  const slug = encodeURIComponent(facts.institutionSlug);
  const { subject, opening, link, why: ownRule } = frame(facts, institution, base, slug, facts.helpRequestId);
  const student = toStudent(facts.reason);
  const toStaffAboutRequest = !student && facts.reason !== 'invited';
  const settings = toStaffAboutRequest ? `${base}/console/${slug}/me/notifications` : undefined;
  const why = ownRule ?? whyLine(facts.rule ?? defaultRule[facts.reason], facts.reason, institution);
  const details: string[] = [`Institution: ${institution}`];
  if (toStaffAboutRequest && facts.priority)
    details.push(`Priority: ${priorityWords[facts.priority] ?? facts.priority}`);
  if (toStaffAboutRequest && facts.requestCreatedAt)
    details.push(`Raised: ${formatInZone(facts.requestCreatedAt, facts.timeZone)}`);
  const linkWords =
    facts.reason === 'invited' ? 'Sign in' : student ? 'Read it on your request' : 'Open the request';
  const shownWhere = student
    ? 'The conversation is shown only on your request, after you sign in.'
    : facts.reason === 'invited'
      ? 'Staff and admins sign in with their institution account; there is no separate password.'
      : 'The request itself is shown only in the console, to signed-in staff.';
  const lines = [
    opening,
    '',
    ...details,
    '',
    `${linkWords} (sign-in required): ${link}`,
    '',
    shownWhere,
    why,
  ];
  if (settings) lines.push(`Change what you are told: ${settings}`);
  const html = [
    `<p>${escapeHtml(opening)}</p>`,
    '<ul>',
    ...details.map((fact) => `<li>${escapeHtml(fact)}</li>`),
    '</ul>',
    `<p><a href="${escapeHtml(link)}">${escapeHtml(linkWords)}</a> (sign-in required)</p>`,
    `<p>${escapeHtml(shownWhere)} ${escapeHtml(why)}` +
      (settings ? ` <a href="${escapeHtml(settings)}">Change what you are told</a>.` : '') +
      '</p>',
  ].join('\n');
  const host = new URL(base).hostname || 'localhost';
  return { subject, text: `${lines.join('\n')}\n`, html, messageId: `<${facts.notificationId}@${host}>` };
}
