// The admin audit in sentences: "Ira Admin deleted the webhook endpoint https://hooks.example.com",
// "Ira Admin rolled the help-sync secret (the previous one works for a while)". One table for the
// console's and the admin API's routes (both are audited under their route), so an entry reads the
// same whichever way the change was made; the page and its CSV say the same words.

/** A change's words: the verb phrase, with `{}` where the thing it acted on is named. */
type Phrase = string | ((subject: string | undefined) => string);

/**
 * A phrase naming its thing: "deleted the webhook endpoint https://…"; an entry without its words
 * (written before they were kept) says "deleted a webhook endpoint", "removed someone".
 */
const named = (what: string) => (subject: string | undefined) => {
  if (subject) return `${what} ${subject}`;
  const last = what.lastIndexOf('the ');
  if (last === -1) return `${what} someone`;
  const rest = what.slice(last + 4);
  return `${what.slice(0, last)}${/^[aeiou]/i.test(rest) ? 'an' : 'a'} ${rest}`;
};

/** Routes (method and path after the institution) and what they did, most specific first. */
const phrases: [RegExp, Phrase][] = [
  // Secrets: issuing replaces at once; rolling keeps the previous secret for a while.
  [/^POST (roster-secret|secrets\/roster)$/, 'issued a roster secret'],
  [/^(DELETE roster-secret|POST secrets\/roster\/revoke)$/, 'revoked the roster secret'],
  [/^POST (help-sync-secret|secrets\/help-sync)$/, 'issued a help-sync secret'],
  [
    /^POST (help-sync-secret|secrets\/help-sync)\/rotate$/,
    'rolled the help-sync secret (the previous one keeps working for a while)',
  ],
  [/^(DELETE help-sync-secret|POST secrets\/help-sync\/revoke)$/, 'revoked the help-sync secret'],
  // Webhook endpoints.
  [/^POST (webhook-endpoints|webhooks)$/, named('added the webhook endpoint')],
  [/^(DELETE webhook-endpoints\/:id|POST webhooks\/:id\/delete)$/, named('deleted the webhook endpoint')],
  [/^POST webhooks\/:id\/event-types$/, named('changed the event types of the webhook endpoint')],
  [/^POST webhooks\/:id\/enabled$/, named('enabled or disabled the webhook endpoint')],
  [/^POST webhook-endpoints\/:id\/disable$/, named('disabled the webhook endpoint')],
  [/^PATCH webhook-endpoints\/:id$/, named('changed the webhook endpoint')],
  [
    /^POST (webhook-endpoints\/:id\/rotate-secret|webhooks\/:id\/rotate)$/,
    named('rolled the signing secret (the previous one signs for a while) of the webhook endpoint'),
  ],
  [
    /^POST (webhook-endpoints|webhooks)\/:id\/reveal-secret$/,
    named('revealed the signing secret of the webhook endpoint'),
  ],
  [/^POST (webhook-endpoints|webhooks)\/:id\/test$/, named('sent a test event to the webhook endpoint')],
  [
    /^POST (webhook-endpoints|webhooks)\/:id\/redeliver$/,
    named('redelivered an event to the webhook endpoint'),
  ],
  [
    /^POST (webhook-endpoints|webhooks)\/:id\/replay$/,
    named('replayed the failed deliveries of the webhook endpoint'),
  ],
  // People and sign-in.
  [/^POST people$/, named('invited')],
  [/^(DELETE people\/:id\/sessions|POST people\/:id\/sessions)$/, named('ended every session of')],
  [/^(DELETE people\/:id|POST people\/:id\/remove)$/, named('removed')],
  [/^(PATCH|POST) people\/:id$/, named('changed the roles of')],
  [/^(PUT|POST) identity-provider$/, "saved the institution's identity provider"],
  [/^DELETE identity-provider$/, "removed the institution's identity provider"],
  // Cohorts, the institution.
  [/^POST cohorts$/, named('created the cohort')],
  [/^POST cohorts\/:id\/archive$/, named('archived the cohort')],
  [/^POST cohorts\/:id\/restore$/, named('restored the cohort')],
  [/^(PATCH|POST) cohorts\/:id$/, named('changed the cohort')],
  [/^POST time-zone$/, "changed the institution's time zone"],
  [/^PATCH $/, "changed the institution's settings"],
  [/^POST (institutions|\/console)$/, named('created the institution')],
  [/^POST archive$/, 'archived the institution'],
  [/^POST restore$/, 'restored the institution'],
  // Calendar feeds.
  [/^POST calendar-feeds$/, named('added the calendar feed')],
  [/^(DELETE calendar-feeds\/:id|POST calendar-feeds\/:id\/delete)$/, named('deleted the calendar feed')],
  [/^POST calendar-feeds\/:id\/fetch$/, named('fetched now the calendar feed')],
  [/^(PATCH|POST) calendar-feeds\/:id$/, named('changed the calendar feed')],
  // The rest.
  [/^POST campuses\/merge$/, 'merged two campuses'],
  [/^(PUT|POST) crisis-contacts$/, 'saved the crisis contacts'],
  [/^POST full-syncs\/:id\/confirm$/, 'confirmed the departures a full sync held'],
  [/^POST full-syncs\/:id\/discard$/, 'discarded the departures a full sync held'],
  [/^POST help-requests$/, 'raised a help request'],
  [/^POST (help-requests|inbox)\/:id\/notes$/, 'added a note to a help request'],
  [/^POST (help-requests|inbox)\/:id\/status$/, 'changed the status of a help request'],
  [/^(PUT help-requests|POST inbox)\/:id\/assignment$/, 'assigned a help request'],
  [/^(PUT|POST) me\/notifications$/, 'changed their own notification choices'],
  [/^(PUT notification-recipients|POST notifications)$/, 'chose who is told of crisis requests'],
  [/^(PUT|POST) oneroster-source$/, 'saved the OneRoster source'],
  [/^DELETE oneroster-source$/, 'removed the OneRoster source'],
  [/^POST oneroster-source\/(pulls|sync)$/, 'asked for a OneRoster pull'],
  [/^POST operators$/, 'added an operator'],
  [/^DELETE operators\/:id$/, 'removed an operator'],
  [/^POST operator-sign-in-links$/, 'made an operator sign-in link'],
];

/** The route of an audit entry after its institution: `DELETE /admin/v1/institutions/:slug/people/:id` is "DELETE people/:id". */
function routeKey(action: string): string {
  const [method = '', route = ''] = action.split(' ');
  const rest = route
    .replace(/^\/admin\/v1\/institutions\/:slug\/?/, '')
    .replace(/^\/console\/:slug\/?/, '')
    .replace(/^\/admin\/v1\/?/, '');
  return `${method} ${rest}`;
}

/** What an admin change did, without who: "deleted the webhook endpoint https://…". */
export function adminChangeWords(action: string, subject?: string | null): string {
  const key = routeKey(action);
  const phrase = phrases.find(([pattern]) => pattern.test(key))?.[1];
  if (phrase === undefined) return `made a change (${key.trim() || action})`;
  return typeof phrase === 'string' ? phrase : phrase(subject ?? undefined);
}

/** An admin audit entry as a sentence: "Ira Admin deleted the webhook endpoint https://…". */
export function adminSentence(entry: { actor: string; action: string; subject?: string | null }): string {
  const actor = entry.actor.charAt(0).toUpperCase() + entry.actor.slice(1);
  return `${actor} ${adminChangeWords(entry.action, entry.subject)}`;
}
