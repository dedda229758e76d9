// The paging options every listing command shares, and its query string.
import type { Command } from 'commander';

/** Adds --limit and --cursor to a listing command. */
export function pagingOptions(command: Command, defaultLimit = '100'): Command {
  return command
    .option('--limit <n>', 'rows per page (at most 1000)', defaultLimit)
    .option('--cursor <cursor>', 'start after the page that printed this cursor ("next page: --cursor …")');
}

/** Adds --limit and --offset to a listing the API pages by offset (calendar feeds and fetches). */
export function offsetPagingOptions(command: Command): Command {
  return command.option('--limit <n>', 'page size', '100').option('--offset <n>', 'skip this many', '0');
}

/** `limit`, `cursor` and the filters given, as a query string; `names` maps option to parameter. */
export function listingQuery(options: Record<string, unknown>, names: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [option, param] of Object.entries({ limit: 'limit', cursor: 'cursor', ...names })) {
    const value = options[option];
    if (typeof value === 'string') params.set(param, value);
  }
  return params.toString();
}

/** `limit`, `offset` and the filters given, as a query string (an offset-paged listing). */
export const offsetQuery = (options: Record<string, unknown>, names: Record<string, string> = {}): string =>
  listingQuery(options, { offset: 'offset', ...names });
