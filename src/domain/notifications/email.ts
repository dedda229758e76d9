// What a notification email says, pure. The decision (docs/notifications.md): an email is a nudge
// to open the console, not a copy of the request. It names the institution, the kind of request,
// its priority and when it was raised, and links to the request's page in the console, where
// signing in decides who may read it. It never carries the student's name or anything they wrote:
// mail is copied to phones, forwarded and kept by mail providers outside the institution's control,
// and a crisis request's text is the most sensitive thing the platform holds. The subject line,
// shown on lock screens, names only the kind of request and the institution.

export type Reason = 'crisis' | 'new' | 'assigned' | 'escalation';

export interface EmailFacts {
  /** The outbox row's id, which also makes the Message-ID (a resent email has the same one). */
  notificationId: string;
  reason: Reason;
  helpRequestId: string;
  priority: string;
  requestCreatedAt: Date;
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

/** `2026-11-25 18:20 Europe/London`: the institution's wall clock with its zone named, as the console shows it. */
export function formatInZone(instant: Date, timeZone: string): string {
  const parts: Record<string, string> = {};
  for (const part of new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(instant))
    parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${timeZone}`;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The words of an escalation email (the other reasons' are in composeEmail). */
function reasonWords(facts: EmailFacts, institution: string) {
  if (facts.reason !== 'escalation') return undefined;
  const minutes = facts.escalation?.windowMinutes ?? 15;
  const rule = `a crisis request that nobody assigns, answers or moves out of New within ${minutes} minutes is escalated once`;
  return {
    subject: `Crisis request not picked up at ${institution}`,
    opening: `A crisis request has waited ${minutes} minutes without anyone picking it up. Please open it now.`,
    why: facts.escalation?.toAdmins
      ? `You receive this because you are an admin of ${institution} and no escalation list is chosen: ${rule}.`
      : `You receive this because an admin of ${institution} put you on the escalation list: ${rule}.`,
  };
}

export function composeEmail(facts: EmailFacts): ComposedEmail {
  const institution = oneLine(facts.institutionName);
  const base = facts.publicBaseUrl.replace(/\/+$/, '');
  const link = `${base}/console/${encodeURIComponent(facts.institutionSlug)}/inbox/${facts.helpRequestId}`;
  const settings = `${base}/console/${encodeURIComponent(facts.institutionSlug)}/me/notifications`;
  const words = reasonWords(facts, institution);
  const subject =
    words?.subject ??
    (facts.reason === 'crisis'
      ? `New crisis request at ${institution}`
      : facts.reason === 'assigned'
        ? `A help request was assigned to you at ${institution}`
        : `New help request at ${institution}`);
  const opening =
    words?.opening ??
    (facts.reason === 'crisis'
      ? 'A student has raised a crisis request. Please open it now.'
      : facts.reason === 'assigned'
        ? 'A help request has been assigned to you.'
        : 'A student has raised a new help request.');
  const why =
    words?.why ??
    (facts.reason === 'crisis'
      ? `You receive this because an admin of ${institution} chose you to be told of crisis requests.`
      : facts.reason === 'assigned'
        ? 'You receive this because you asked to be told of requests assigned to you.'
        : 'You receive this because you asked to be told of every new request.');
  const priority = priorityWords[facts.priority] ?? facts.priority;
  const raised = formatInZone(facts.requestCreatedAt, facts.timeZone);
  const lines = [
    opening,
    '',
    `Institution: ${institution}`,
    `Priority: ${priority}`,
    `Raised: ${raised}`,
    '',
    `Open the request (sign-in required): ${link}`,
    '',
    'The request itself is shown only in the console, to signed-in staff.',
    why,
    `Change what you are told: ${settings}`,
  ];
  const html = [
    `<p>${escapeHtml(opening)}</p>`,
    '<ul>',
    `<li>Institution: ${escapeHtml(institution)}</li>`,
    `<li>Priority: ${escapeHtml(priority)}</li>`,
    `<li>Raised: ${escapeHtml(raised)}</li>`,
    '</ul>',
    `<p><a href="${escapeHtml(link)}">Open the request</a> (sign-in required)</p>`,
    `<p>The request itself is shown only in the console, to signed-in staff. ${escapeHtml(why)} ` +
      `<a href="${escapeHtml(settings)}">Change what you are told</a>.</p>`,
  ].join('\n');
  const host = new URL(base).hostname || 'localhost';
  return { subject, text: `${lines.join('\n')}\n`, html, messageId: `<${facts.notificationId}@${host}>` };
}
