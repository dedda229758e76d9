// "Fetch now": an administrator's on-demand fetch of one feed (the admin API and the console),
// through the same claim and refresh as the scheduled fetch (refresh.ts), waited for.
import { ApiError } from '../../errors.ts';
import type { Deps } from '../deps.ts';
import { getFeed } from './feeds.ts';
import type { FetchRecord } from './model.ts';
import { claimFeed, refreshDepsOf, refreshFeed } from './refresh.ts';

/** Fetches a feed now and returns the fetch record (a failed fetch is a record, not an error). */
export async function fetchFeedNow(
  deps: Pick<Deps, 'db' | 'clock' | 'policy' | 'calendarFetch'>,
  institutionId: string,
  id: string,
): Promise<FetchRecord> {
  await getFeed(deps.db, institutionId, id);
  const refresh = refreshDepsOf(deps);
  const claimed = await claimFeed(refresh, institutionId, id);
  if (!claimed)
    throw new ApiError('fetch_in_progress', {
      detail: 'this feed is being fetched right now; its record will appear in the fetch history',
    });
  const record = await refreshFeed(refresh, claimed, 'manual');
  if (!record)
    throw new ApiError('conflict', {
      detail: 'the feed was changed or deleted while it was being fetched; nothing was recorded',
    });
  return record;
}
