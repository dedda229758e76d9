import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CalendarFeed, FetchRecord } from '../../../domain/calendar/feeds.ts';
import { NewFeedBody } from '../../../domain/calendar/schemas.ts';
import { checkForm } from '../form-check.ts';
import * as feedsPage from './calendar-feeds-view.ts';

const at = new Date('2026-09-01T06:00:00Z');
const feed: CalendarFeed = {
  id: 'f1',
  institution_id: 'i',
  url: 'https://calendar.example.edu/term.ics',
  name: null,
  refresh_minutes: 60,
  audience_tags: ['t1', 'gone'],
  health: 'pending',
  last_status: null,
  last_error: null,
  failure_count: 0,
  failing_since: null,
  last_fetch_at: null,
  last_success_at: null,
  events_truncated: 0,
  next_fetch_at: at,
  created_at: at,
  updated_at: at,
};
const record: FetchRecord = {
  id: 7,
  feed_id: 'f1',
  trigger: 'manual',
  started_at: at,
  duration_ms: 12,
  status: 'ok',
  http_status: 200,
  events_added: 2,
  events_updated: 0,
  events_removed: 0,
  events_total: 2,
  events_skipped: 0,
  events_truncated: 0,
  error: null,
  problems: [],
};
const tag = { id: 't1', kind: 'campus' as const, source_id: 'c', label: 'North', created_at: at };

test("a feed's state in a few words", () => {
  assert.equal(feedsPage.feedState(feed), 'not fetched yet');
  assert.equal(
    feedsPage.feedState({ ...feed, health: 'ok', last_success_at: at }, () => 'at noon'),
    'fetched at noon',
  );
  assert.equal(
    feedsPage.feedState({ ...feed, health: 'ok', last_success_at: at }),
    'fetched 2026-09-01 06:00 UTC',
  );
  assert.match(
    feedsPage.feedState({ ...feed, health: 'ok', last_success_at: at, events_truncated: 1500 }),
    /; truncated: 1,500 occurrences left out \(a feed keeps at most [\d,]+, the upcoming ones first\)$/,
  );
  assert.equal(
    feedsPage.feedState({ ...feed, health: 'failing', failing_since: at, last_error: 'HTTP 500' }),
    'failing since 2026-09-01 06:00 UTC: HTTP 500; next attempt 2026-09-01 06:00 UTC',
  );
});

test('the feed form: an empty name is none, empty minutes left out, other minutes passed as typed', () => {
  const values = feedsPage.feedValues({
    url: ' https://x.example/a.ics ',
    name: '',
    refresh_minutes: '',
    audience_tags: 't1',
  });
  assert.deepEqual(feedsPage.feedInput(values), {
    url: 'https://x.example/a.ics',
    name: null,
    audience_tags: ['t1'],
  });
  assert.equal(feedsPage.feedInput({ ...values, refresh_minutes: '90' }).refresh_minutes, 90);
  assert.equal(feedsPage.feedInput({ ...values, refresh_minutes: 'soon' }).refresh_minutes, 'soon');
});

test('the form is checked with the API schema; each message is a sentence without a code', () => {
  const input = feedsPage.feedInput({
    url: 'https://x.example/a.ics',
    name: '',
    refresh_minutes: '1',
    audience_tags: ['x'],
  });
  const checked = checkForm(NewFeedBody, input, feedsPage.feedFields);
  assert.equal(checked.ok, false);
  const errors = !checked.ok ? checked.errors : {};
  assert.match(errors.refresh_minutes, /^Minutes between fetches must be \d+ or more$/);
  assert.doesNotMatch(errors.audience_tags, /_field/);
});

test('the feeds page names audiences (an unknown tag by its id); a feed page shows the fetch just made', () => {
  const listing = feedsPage.feedsView([feed], [tag]);
  assert.deepEqual(listing.feeds[0].audience, ['North (campus)', 'gone']);
  assert.equal(listing.values.refresh_minutes, '60');
  const page = feedsPage.feedView(feed, [record], [], [tag], '7');
  assert.equal(page.fetched, record);
  assert.equal(page.title, 'Calendar feed https://calendar.example.edu/term.ics');
  assert.equal(page.values.refresh_minutes, '60');
  assert.equal(feedsPage.feedView(feed, [record], [], [tag]).fetched, undefined);
});

test('the add form leaves an empty address out, so the check names it with every other problem', () => {
  const values = { url: '', name: 'N'.repeat(201), refresh_minutes: '1', audience_tags: [] };
  const checked = checkForm(NewFeedBody, feedsPage.newFeedInput(values), feedsPage.feedFields);
  assert.equal(checked.ok, false);
  if (checked.ok) return;
  assert.deepEqual(Object.keys(checked.errors).sort(), ['name', 'refresh_minutes', 'url']);
  assert.equal(checked.errors.url, 'Enter the calendar address');
});
