// The listing's one statement per page (a hot path: the inbox, its live rows every few seconds,
// the admin API), in a file of its own: the page of the filters and order asked for, and the
// three ways a search's page is read, with the reasons for each beside them.
import type { Queryable } from '../../../db/db.ts';
import { type KeysetPage, keysetPage, type Paged } from '../../../db/keyset.ts';
import type { CursorKey } from '../../../lib/cursor.ts';
import type { Assignment } from '../listing.ts';
import { helpRequestColumns } from '../queries.ts';
import type { Category, Priority, Status } from '../rules.ts';
import { STUDENT_TEXT } from '../search.ts';
import type { HelpRequestRow } from '../store.ts';

export interface ListQuery extends KeysetPage {
  status?: Status;
  priority?: Priority;
  category?: Category;
  /** A LIKE pattern (./search.ts) matched against the request's text and its student. */
  search?: string;
  studentId?: string;
  assignment?: Assignment;
  crisisFirst: boolean;
}

/** 1 for an open crisis request, else 0; word for word the expression of help_requests_crisis_first_idx. */
const OPEN_CRISIS = "(CASE WHEN priority = 'crisis' AND status <> 'resolved' THEN 1 ELSE 0 END)";

/**
 * A search term found in at most this many requests is rare: its matches are read from the
 * trigram indexes and sorted. A commoner one is read by walking the listing's order.
 */
export const SEARCH_RARE = 1000;

/**
 * How many requests of the listing's order the walk of a common term reads at most before it
 * turns to reading every match (a common term whose matches are all old requests).
 */
export const SEARCH_WALK = 10_000;

/**
 * One page of the listing. The WHERE clause is built from the filters given, so the planner sees
 * only the conditions that apply and picks the index that serves them; every part of the sort
 * key descends, so "after" is a plain row comparison the index range-scans.
 *
 * A search (docs/performance.md, "Inbox search") is read the cheaper way for its term, and every
 * way gives the same page:
 * 1. its matches are read from the two trigram indexes (migration 0086), at most SEARCH_RARE + 1
 *    of them; a rare term (names, emails, SIS ids, most phrases) ends here, its few matches
 *    sorted for the page, in one statement;
 * 2. a common term (more matches than that, so 1 request in 100 or more at 100,000 requests)
 *    walks the listing's own index in order, matching each request as it comes and stopping at
 *    the page's end: a term in 1 request of 10 is answered after some 500 requests, without
 *    reading and sorting its 10,000 matches;
 * 3. a common term whose matches lie beyond SEARCH_WALK requests of the order is read whole
 *    from the trigram indexes, as a rare one.
 * The planner cannot make this choice itself: it cannot know how common a term is before reading
 * it (its estimate of `LIKE '%term%'` is a guess), and a wrong guess costs the whole table.
 */
export async function selectRequestPage(
  db: Queryable,
  institutionId: string,
  filter: ListQuery,
  /** The bounds of the ways (tests make them small). */
  bounds: SearchBounds = { rare: SEARCH_RARE, walk: SEARCH_WALK },
): Promise<Paged<HelpRequestRow>> {
  const read = (way: Way) => selectPageRows(db, institutionId, filter, way, bounds);
  const paged = (rows: PageRow[]) =>
    keysetPage(
      rows.filter((row) => row.id !== null).map(({ found, ...row }) => row),
      filter.limit,
    );
  if (!filter.search) return paged(await read('listing'));
  const rare = await read('rare');
  if (rare.length === 0 || rare[0].found <= bounds.rare) return paged(rare);
  const walked = await read('walk');
  if (walked.length > filter.limit) return paged(walked);
  return paged(await read('every match'));
}

export interface SearchBounds {
  rare: number;
  walk: number;
}
type Way = 'listing' | 'rare' | 'walk' | 'every match';
type PageRow = HelpRequestRow & { sort_key: CursorKey; found: number };

/**
 * The listing's rows of one page, with one row more than the page when there is a next page. A
 * search's `rare` read answers one row at least, its `found` the count of matches (at most
 * SEARCH_RARE + 1), with no request (a null id) when the page is empty or the term is common.
 */
async function selectPageRows(
  db: Queryable,
  institutionId: string,
  filter: ListQuery,
  way: Way,
  bounds: SearchBounds,
): Promise<PageRow[]> {
  const params: unknown[] = [institutionId];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ['institution_id = $1'];
  if (filter.status) where.push(`status = ${param(filter.status)}`);
  if (filter.priority) where.push(`priority = ${param(filter.priority)}`);
  if (filter.category) where.push(`category = ${param(filter.category)}`);
  if (filter.studentId) where.push(`student_id = ${param(filter.studentId)}::uuid`);
  const assignment = filter.assignment;
  // A legacy name (assigned_to, see migration 0019) counts as assigned, to no person.
  if (assignment?.kind === 'none') where.push('assigned_person_id IS NULL AND assigned_to IS NULL');
  if (assignment?.kind === 'any') where.push('(assigned_person_id IS NOT NULL OR assigned_to IS NOT NULL)');
  if (assignment?.kind === 'person') where.push(`assigned_person_id = ${param(assignment.personId)}::uuid`);

  const key = filter.crisisFirst ? [OPEN_CRISIS, 'created_at', 'id'] : ['created_at', 'id'];
  const after = filter.after;
  if (after) {
    const casts = filter.crisisFirst ? ['::int', '::timestamptz', '::uuid'] : ['::timestamptz', '::uuid'];
    where.push(`(${key.join(', ')}) < (${after.map((part, i) => `${param(part)}${casts[i]}`).join(', ')})`);
  }
  const order = (parts: string[]) => parts.map((part) => `${part} DESC`).join(', ');
  const limit = param(filter.limit + 1);
  const page = (from: string, conditions: string[], sortKey = key) =>
    `SELECT ${helpRequestColumns}, json_build_array(${sortKey.join(', ')}) AS sort_key FROM ${from}
     WHERE ${conditions.join(' AND ')} ORDER BY ${order(sortKey)} LIMIT ${limit}`;

  let sql = page('help_requests', where);
  if (filter.search) {
    const pattern = param(filter.search);
    // The requests matching by their own text, then those matching by their student's name,
    // email or SIS id (and not by their text), each once, read from the trigram indexes and
    // stopping at `cap` matches. STUDENT_TEXT's columns are the students' alone.
    //
    // A matching student's requests are looked up by student, one index probe each, as the
    // students come: a lateral subquery that OFFSET 0 keeps from being flattened into a plain
    // join, so the planner has no hash join to choose. It chose one (reading every request of
    // every institution, 40 ms at 100,000 requests, against 4 ms) whenever ANALYZE's sample put
    // the term in one of the 100 strings of the index expression's histogram, which made a term
    // of 100 students look like one of 1,000 (docs/performance.md, "The inbox search's two plans").
    const matches = (cap: string) => `SELECT m.id FROM help_requests m
        WHERE m.institution_id = $1 AND lower(m.summary) LIKE ${pattern}
      UNION ALL SELECT m.id FROM students s CROSS JOIN LATERAL (SELECT m.id FROM help_requests m
          WHERE m.student_id = s.id AND m.institution_id = $1
            AND (m.summary IS NULL OR lower(m.summary) NOT LIKE ${pattern})
          OFFSET 0) m
        WHERE s.institution_id = $1 AND ${STUDENT_TEXT} LIKE ${pattern}
      LIMIT ${cap}`;
    if (way === 'rare') {
      // The page is read only when the matches are few; one row (a null request) says how many.
      sql = `WITH found AS MATERIALIZED (${matches(String(bounds.rare + 1))})
        SELECT f.found, page.* FROM (SELECT count(*)::int AS found FROM found) f
        LEFT JOIN LATERAL (${page('help_requests', [...where, 'id IN (SELECT id FROM found)', `f.found <= ${bounds.rare}`])}) page ON true`;
    } else if (way === 'every match') {
      sql = `WITH found AS MATERIALIZED (${matches('ALL')})
        ${page('help_requests', [...where, 'id IN (SELECT id FROM found)'])}`;
    } else {
      // The first SEARCH_WALK requests of the page's order, read from the listing's index in
      // order and lazily (the outer LIMIT stops the walk at the page's end); their sort key is
      // selected as columns so the order carries through without a sort. A request matches by
      // its text, or else its student is among the students matching (read once, from their
      // trigram index, into a hash).
      const walk = `(SELECT *, ${key.map((part, i) => `${part} AS k${i}`).join(', ')} FROM help_requests
        WHERE ${where.join(' AND ')} ORDER BY ${order(key)} LIMIT ${bounds.walk}) AS help_requests`;
      const match = `(lower(summary) LIKE ${pattern} OR student_id IN (SELECT s.id FROM students s
        WHERE s.institution_id = $1 AND ${STUDENT_TEXT} LIKE ${pattern}))`;
      sql = page(
        walk,
        [match],
        key.map((_, i) => `k${i}`),
      );
    }
  }
  const { rows } = await db.query<PageRow>(sql, params);
  return rows;
}
