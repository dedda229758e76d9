// ssp calendar-feeds ... and ssp calendar-events (admin API).
import type { Command } from 'commander';
import type { AdminCall, Print } from '../admin-client.ts';
import { commaList, institutionPath, itemPath } from './args.ts';
import { offsetPagingOptions, offsetQuery } from './listing.ts';

export function registerCalendarCommands(program: Command, admin: () => AdminCall, print: Print) {
  const feeds = program
    .command('calendar-feeds')
    .description("An institution's calendar feeds (.ics URLs fetched on a schedule)");
  const path = itemPath('calendar-feeds');
  const minutes = (value: string | undefined) => (value === undefined ? undefined : Number(value));

  feeds
    .command('add <institution> <url>')
    .description('Add a feed (fetched at once by the worker, then every --refresh minutes)')
    .option('--name <text>', 'a name for people')
    .option('--refresh <minutes>', 'minutes between fetches (default 60)')
    .option('--audience <tag_ids>', 'comma-separated audience tag ids (default: every student)')
    .action(async (slug: string, url: string, o) =>
      print(
        await admin()('POST', path(slug), {
          url,
          name: o.name,
          refresh_minutes: minutes(o.refresh),
          audience_tags: commaList(o.audience),
        }),
      ),
    );
  offsetPagingOptions(
    feeds
      .command('list <institution>')
      .description("List the institution's calendar feeds with their health"),
  ).action(async (slug: string, o) => print(await admin()('GET', `${path(slug)}?${offsetQuery(o)}`)));
  feeds
    .command('show <institution> <id>')
    .description('Show one feed')
    .action(async (slug: string, id: string) => print(await admin()('GET', path(slug, id))));
  feeds
    .command('update <institution> <id>')
    .description('Change url, name, refresh interval or audience')
    .option('--url <url>', 'new public https .ics URL')
    .option('--name <text>', 'empty string to clear')
    .option('--refresh <minutes>', 'new minutes between fetches')
    .option('--audience <tag_ids>', 'comma-separated audience tag ids; empty string for every student')
    .action(async (slug: string, id: string, o) =>
      print(
        await admin()('PATCH', path(slug, id), {
          url: o.url,
          name: o.name === '' ? null : o.name,
          refresh_minutes: minutes(o.refresh),
          audience_tags: commaList(o.audience),
        }),
      ),
    );
  feeds
    .command('delete <institution> <id>')
    .description('Delete a feed and its stored events')
    .action(async (slug: string, id: string) => {
      await admin()('DELETE', path(slug, id));
      print({ deleted: true });
    });
  feeds
    .command('fetch <institution> <id>')
    .description('Fetch the feed now; prints the fetch record')
    .action(async (slug: string, id: string) => print(await admin()('POST', path(slug, id, '/fetch'))));
  offsetPagingOptions(
    feeds.command('fetches <institution> <id>').description('Fetch history, newest first'),
  ).action(async (slug: string, id: string, o) =>
    print(await admin()('GET', path(slug, id, `/fetches?${offsetQuery(o)}`))),
  );

  offsetPagingOptions(
    program
      .command('calendar-events <institution>')
      .description("Occurrences of the institution's calendar feeds in a window")
      .requiredOption('--from <time>', 'a date (2026-09-01) or ISO 8601 date-time')
      .requiredOption('--to <time>', 'a date or ISO 8601 date-time (exclusive)')
      .option('--feed <id>', 'only this feed'),
  ).action(async (slug: string, o) => {
    const query = offsetQuery(o, { from: 'from', to: 'to', feed: 'feed_id' });
    print(await admin()('GET', `${institutionPath(slug, 'calendar-events')}?${query}`));
  });
}
