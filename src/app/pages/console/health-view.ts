// What the integration health page shows, built from the domains' own types by a pure function:
// the last roster and enrolments pushes, held departures, both secrets, webhook endpoints failing
// or disabled, calendar feeds failing, and the list of what needs attention, each item linking to
// its page. The help-sync secret and the endpoints are undefined for a caller who may not see them.
import type { CalendarFeed } from '../../../domain/calendar/feeds.ts';
import type { FullSyncListing } from '../../../domain/departures/schemas.ts';
import type { FailingSource } from '../../../domain/oneroster/pull/sources.ts';
import type { RunSummary } from '../../../domain/runs/schemas.ts';
import type { HelpSyncSecretStatus, RosterSecretStatus } from '../../../domain/secrets/schemas.ts';
import type { WebhookEndpoint } from '../../../domain/webhooks/schemas.ts';
import { when } from './forms.ts';

const DAY_MS = 86_400_000;

export interface HealthFacts {
  roster: RunSummary | undefined;
  enrolments: RunSummary | undefined;
  held: readonly FullSyncListing[];
  rosterSecret: RosterSecretStatus;
  syncSecret: HelpSyncSecretStatus | undefined;
  endpoints: readonly WebhookEndpoint[] | undefined;
  feeds: readonly CalendarFeed[];
  /** The institution's OneRoster source, when its last pulls failed. */
  failingSources: readonly FailingSource[];
}

interface Attention {
  text: string;
  href?: string;
}

const plural = (n: number, word: string, words = `${word}s`) => (n === 1 ? word : words);

/** An endpoint's trouble as the page says it: its reasons read "disabled by an administrator", "410 Gone", ... */
export function endpointState(endpoint: WebhookEndpoint, time: (value: unknown) => string = when): string {
  if (endpoint.enabled) return `failing since ${time(endpoint.failing_since)}`;
  const reason = String(endpoint.disabled_reason ?? 'no reason given');
  return reason.startsWith('disabled') ? reason : `disabled: ${reason}`;
}

/** A failing feed's state, as the calendar feeds page says it. */
export function failingFeedState(feed: CalendarFeed, time: (value: unknown) => string = when): string {
  return `failing since ${time(feed.failing_since)}: ${feed.last_error ?? 'no reason given'}; next attempt ${time(feed.next_fetch_at)}`;
}

/** Days left before the roster secret's rotation date (negative: past it), when it has one. */
export function rotationDaysLeft(status: RosterSecretStatus, now: Date): number | undefined {
  if (!status.rotate_by) return undefined;
  return Math.floor((new Date(status.rotate_by).getTime() - now.getTime()) / DAY_MS);
}

/**
 * The integration health page of the institution at `/console/<slug>`, at `now`, its times
 * written by `time` (the institution's zone on the console).
 */
/**
 * The health page's line for escalated crisis requests nobody has picked up (the banner's
 * requests, read once per page by the console's context), first among what needs attention.
 */
export function escalationAttention(
  open:
    | { total: number; more?: boolean; requests: { created_at: Date; help_request_id: string }[] }
    | undefined,
  slug: string,
  time: (value: unknown) => string = when,
): Attention | undefined {
  if (!open?.total) return undefined;
  const oldest = open.requests[0];
  return {
    text:
      `${open.more ? `More than ${open.total}` : open.total} escalated crisis ${plural(open.total, 'request')} ${plural(open.total, 'waits', 'wait')} ` +
      `for someone to pick ${open.total === 1 ? 'it' : 'them'} up (the oldest raised ${time(oldest.created_at)})`,
    href: `/console/${slug}/inbox/${oldest.help_request_id}`,
  };
}

export function healthView(
  facts: HealthFacts,
  slug: string,
  now: Date,
  time: (value: unknown) => string = when,
) {
  const base = `/console/${slug}`;
  const rotationDays = rotationDaysLeft(facts.rosterSecret, now);
  const troubled = (facts.endpoints ?? [])
    .filter((e) => !e.enabled || e.failing_since)
    .map((e) => ({ ...e, state: endpointState(e, time) }));
  const failingFeeds = facts.feeds
    .filter((f) => f.health === 'failing')
    .map((f) => ({ ...f, label: f.name ?? f.url, state: failingFeedState(f, time) }));

  const attention: Attention[] = [];
  for (const run of [facts.roster, facts.enrolments]) {
    if (run && run.error_count > 0)
      attention.push({
        text: `The last ${run.kind} push had ${run.error_count} row ${plural(run.error_count, 'error')}`,
        href: `${base}/runs/${run.id}`,
      });
  }
  const held = facts.held.length;
  if (held > 0)
    attention.push({
      text: `${held} full ${plural(held, 'sync')} with held departures ${plural(held, 'waits', 'wait')} for a decision`,
      href: `${base}/full-syncs`,
    });
  if (facts.rosterSecret.state !== 'active')
    attention.push({
      text: `The roster secret is ${facts.rosterSecret.state.replace('_', ' ')}`,
      href: `${base}/secrets`,
    });
  else if (rotationDays !== undefined && rotationDays <= 14)
    attention.push({
      text:
        rotationDays < 0
          ? 'The roster secret is past its rotation date'
          : `The roster secret is due for rotation in ${rotationDays} days`,
      href: `${base}/secrets`,
    });
  for (const endpoint of troubled)
    attention.push({
      text: `Webhook endpoint ${endpoint.url}: ${endpoint.state}`,
      href: `${base}/webhooks/${endpoint.id}`,
    });
  for (const feed of failingFeeds)
    attention.push({
      text: `Calendar feed ${feed.label}: ${feed.state}`,
      href: `${base}/calendar-feeds/${feed.id}`,
    });
  // A failing OneRoster source: its pulls change nothing until it answers again.
  for (const source of facts.failingSources)
    attention.push({
      text: `The OneRoster source is failing since ${time(source.failing_since)}: ${source.last_error ?? 'no reason given'}`,
      href: `${base}/oneroster-source`,
    });

  return {
    title: 'Integration health',
    attention,
    pushes: [
      { label: 'Roster', run: facts.roster },
      { label: 'Enrolments', run: facts.enrolments },
    ],
    held: facts.held,
    rosterSecret: facts.rosterSecret,
    rotationDays,
    syncSecret: facts.syncSecret,
    endpoints: facts.endpoints,
    troubled,
    feeds: facts.feeds,
    failingFeeds,
    when,
  };
}
