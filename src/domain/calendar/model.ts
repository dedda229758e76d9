// The calendar area's row and model types, apart from its functions: the feed functions
// (feeds.ts) and their SQL (queries.ts) both speak of them, and neither imports the other's types.
import type { EventProblem } from './problems.ts';

export interface CalendarFeed {
  id: string;
  institution_id: string;
  url: string;
  name: string | null;
  refresh_minutes: number;
  audience_tags: string[];
  health: 'pending' | 'ok' | 'failing';
  last_status: 'ok' | 'not_modified' | 'failed' | null;
  last_error: string | null;
  failure_count: number;
  failing_since: Date | null;
  last_fetch_at: Date | null;
  last_success_at: Date | null;
  /** Occurrences the last successful fetch left out because the feed is over the cap. */
  events_truncated: number;
  next_fetch_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** A page of a listing. */
export interface Page {
  limit: number;
  offset: number;
}

export interface FetchRecord {
  id: number;
  feed_id: string;
  trigger: 'schedule' | 'manual';
  started_at: Date;
  duration_ms: number;
  status: 'ok' | 'not_modified' | 'failed';
  http_status: number | null;
  events_added: number;
  events_updated: number;
  events_removed: number;
  events_total: number | null;
  events_skipped: number;
  events_truncated: number;
  error: string | null;
  /** Events left out or cut short, with the reason (at most 20). */
  problems: EventProblem[];
}

/** A feed claimed for a fetch (./refresh.ts), with what the fetch needs of it. */
export interface ClaimedFeed {
  id: string;
  institution_id: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  refresh_minutes: number;
  failure_count: number;
  lease_token: string;
}

/** A stored occurrence as the listings read it (./events.ts, ./for-students.ts shape it for output). */
export interface StoredEvent {
  feed_id: string;
  uid: string;
  recurrence_id: string;
  starts_at: Date;
  ends_at: Date;
  all_day: boolean;
  summary: string | null;
  location: string | null;
  description: string | null;
  status: 'confirmed' | 'tentative' | 'cancelled';
}
