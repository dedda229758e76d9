// What the read-only data pages show (programs, terms, units, enrolments), built from the
// domain's own listing types by pure functions: the filters a URL gives, and a page of the
// listing with its pager's base.
import { enrolmentStatuses } from '../../../domain/taxonomy/rows.ts';
import { when } from './forms.ts';
import { type Listing, listingUrl } from './listing.ts';

/** A data page's filters as its URL gives them: trimmed, an empty one no filter. */
export function dataFilters(
  names: readonly string[],
  query: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return Object.fromEntries(names.map((name) => [name, query[name]?.trim() || undefined]));
}

/** A data page: a page of the listing, the filters as filled in, and the pager's base. */
export function dataListView<T>(
  title: string,
  listing: Listing<T>,
  filters: Record<string, string | undefined>,
  page: string,
) {
  return { title, listing, filters, self: listingUrl(page, filters), statuses: enrolmentStatuses, when };
}
