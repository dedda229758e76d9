// Calendar feeds of institutions, bound to their dependencies once: the admin API, the CLI
// (through the API) and the fetch worker use this. The parts live in their own modules:
// feeds.ts (configuration), refresh.ts (one fetch), events.ts (reading occurrences).

import type dns from 'node:dns';
import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { type OutboundPolicy, type Resolver, systemResolver } from '../../lib/outbound-url.ts';
import { type EventWindowQuery, listEvents } from './events.ts';
import {
  createFeed,
  DEFAULT_FEEDS_PER_INSTITUTION,
  deleteFeed,
  type FeedDeps,
  type FeedInput,
  type FetchRecord,
  getFeed,
  listFeeds,
  listFetches,
  type Page,
  updateFeed,
} from './feeds.ts';
import { claimFeed, type RefreshDeps, refreshFeed } from './refresh.ts';
import { DEFAULT_LIMITS, type FetchLimits } from './schedule.ts';

export interface CalendarDeps {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  /** Save-time DNS check (default: the system's). */
  resolve?: Resolver;
  /** Connect-time DNS lookup (default: the system's). */
  lookup?: typeof dns.lookup;
  limits?: Partial<FetchLimits>;
  random?: () => number;
  /** Feeds one institution may have (default DEFAULT_FEEDS_PER_INSTITUTION). */
  feedsPerInstitution?: number;
}

export function createCalendarService(deps: CalendarDeps) {
  const feedDeps: FeedDeps = {
    db: deps.db,
    clock: deps.clock,
    policy: deps.policy,
    resolve: deps.resolve ?? systemResolver,
    maxFeeds: deps.feedsPerInstitution ?? DEFAULT_FEEDS_PER_INSTITUTION,
  };
  const refreshDeps: RefreshDeps = {
    db: deps.db,
    clock: deps.clock,
    policy: deps.policy,
    lookup: deps.lookup,
    limits: { ...DEFAULT_LIMITS, ...deps.limits },
    random: deps.random,
  };
  return {
    refreshDeps,
    create: (institutionId: string, input: FeedInput) => createFeed(feedDeps, institutionId, input),
    list: (institutionId: string, page: Page) => listFeeds(feedDeps, institutionId, page),
    get: (institutionId: string, id: string) => getFeed(feedDeps, institutionId, id),
    update: (institutionId: string, id: string, input: FeedInput) =>
      updateFeed(feedDeps, institutionId, id, input),
    remove: (institutionId: string, id: string) => deleteFeed(feedDeps, institutionId, id),
    fetches: (institutionId: string, id: string, page: Page) =>
      listFetches(feedDeps, institutionId, id, page),
    events: (institutionId: string, query: EventWindowQuery) => listEvents(deps.db, institutionId, query),

    /** Fetches a feed now and returns the fetch record (a failed fetch is a record, not an error). */
    async fetchNow(institutionId: string, id: string): Promise<FetchRecord> {
      await getFeed(feedDeps, institutionId, id);
      const claimed = await claimFeed(refreshDeps, institutionId, id);
      if (!claimed)
        throw new ApiError('fetch_in_progress', {
          detail: 'this feed is being fetched right now; its record will appear in the fetch history',
        });
      const record = await refreshFeed(refreshDeps, claimed, 'manual');
      if (!record)
        throw new ApiError('conflict', {
          detail: 'the feed was changed or deleted while it was being fetched; nothing was recorded',
        });
      return record;
    },
  };
}

export type CalendarService = ReturnType<typeof createCalendarService>;
