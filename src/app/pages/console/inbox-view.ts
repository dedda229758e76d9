// What the inbox's pages show, built from the help desk's own types by pure functions: the
// filters a URL asks for and the listing query they stand for, the inbox (open crisis requests
// apart from the rest), a request's page with the people it may be assigned to, and the assignee
// an assignment form names.
import type { Caller } from '../../../domain/access/policy.ts';
import {
  type Category,
  categories,
  type Priority,
  priorities,
  type Status,
  statuses,
} from '../../../domain/helpdesk/rules.ts';
import type {
  AssigneeItem,
  HelpRequestDetail,
  HelpRequestFilters,
  HelpRequestListItem,
} from '../../../domain/helpdesk/schemas.ts';
import {
  durationWords,
  type InboxSettings,
  type ResponseClock,
  responseClock,
} from '../../../domain/inbox/model.ts';
import type { CrisisContact } from '../../../domain/students/crisis-contacts.ts';
import { text, when } from './forms.ts';
import {
  categoryLabel,
  priorityLabel,
  sixWeeksLabel,
  statusLabel,
  studentName,
  timelineWhat,
  timelineWho,
} from './help-request-words.ts';
import type { Listing } from './listing.ts';

const assignedChoices = ['me', 'unassigned'] as const;

/** The inbox's filters as its form names them. */
export interface InboxFilters {
  status?: Status;
  priority?: Priority;
  category?: Category;
  assigned?: (typeof assignedChoices)[number];
  /** The search as typed (checked by the domain: 3 to 200 characters). */
  q?: string;
}

const oneOf = <T extends string>(values: readonly T[], value: unknown): T | undefined =>
  values.includes(value as T) ? (value as T) : undefined;

/** The filters of an inbox URL; a value the form does not offer is no filter. */
export function inboxFilters(query: {
  status?: unknown;
  priority?: unknown;
  category?: unknown;
  assigned?: unknown;
  q?: unknown;
}): InboxFilters {
  const q = typeof query.q === 'string' && query.q.trim() !== '' ? query.q.trim() : undefined;
  return {
    status: oneOf(statuses, query.status),
    priority: oneOf(priorities, query.priority),
    category: oneOf(categories, query.category),
    assigned: oneOf(assignedChoices, query.assigned),
    ...(q === undefined ? {} : { q }),
  };
}

const filterNames = {
  status: 'status',
  priority: 'priority',
  category: 'category',
  assigned: 'assignment choice',
} as const;

/**
 * What the inbox says of filter values its form does not offer (`?status=bogus`): a sentence per
 * value, shown above an empty list, rather than silently listing everything.
 */
export function inboxRefusal(query: {
  status?: unknown;
  priority?: unknown;
  category?: unknown;
  assigned?: unknown;
}): string | undefined {
  const offered = {
    status: statuses,
    priority: priorities,
    category: categories,
    assigned: assignedChoices,
  } as const;
  const problems: string[] = [];
  for (const name of ['status', 'priority', 'category', 'assigned'] as const) {
    const value = query[name];
    if (value === undefined || value === '') continue;
    if (!(offered[name] as readonly unknown[]).includes(value))
      problems.push(
        `“${String(value).slice(0, 40)}” is not a ${filterNames[name]} this list offers: choose one from the form`,
      );
  }
  return problems.length ? problems.join('. ') : undefined;
}

/** The listing query of the inbox's filters: exact over the whole listing, open crisis requests first. */
export function inboxQuery(filters: InboxFilters): HelpRequestFilters {
  return {
    status: filters.status,
    priority: filters.priority,
    category: filters.category,
    q: filters.q,
    assigned: filters.assigned === 'unassigned' ? 'none' : filters.assigned,
    order: 'crisis_first',
  };
}

/** The inbox's URL with these filters, ready for a `cursor` to be added (the pager's base). */
export function inboxUrl(page: string, filters: InboxFilters): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  const search = params.toString();
  return search ? `${page}?${search}` : `${page}?`;
}

const openCrisis = (request: HelpRequestListItem) =>
  request.priority === 'crisis' && request.status !== 'resolved';

/** What the inbox needs to tell time waiting: the institution's targets and the clock's now. */
export interface InboxClock {
  settings: InboxSettings;
  now: Date;
}

/** A row of the inbox: the request, and where it stands against its first-response target. */
export type InboxRow = HelpRequestListItem & { clock: ResponseClock; waited: string; target: string };

const inboxRow = (request: HelpRequestListItem, clock: InboxClock): InboxRow => {
  const rc = responseClock(request, clock.settings, clock.now);
  return {
    ...request,
    clock: rc,
    waited: durationWords(rc.waited_minutes),
    target: durationWords(rc.target_minutes),
  };
};

/**
 * The inbox page. The listing comes crisis first, so its first pages hold every open crisis
 * request: they are shown in a panel of their own above the others. `live` is the address of the
 * rows alone (the same filters and page), which the page fetches every few seconds.
 */
export function inboxView(
  listing: Listing<HelpRequestListItem>,
  filters: InboxFilters,
  page: string,
  clock: InboxClock,
  cursor?: string,
) {
  const rows = listing.items.map((request) => inboxRow(request, clock));
  const self = inboxUrl(page, filters);
  return {
    title: 'Help requests',
    crisis: rows.filter(openCrisis),
    items: rows.filter((request) => !openCrisis(request)),
    listing,
    filters,
    statuses,
    priorities,
    categories,
    self,
    live: `${inboxUrl(`${page}/rows`, filters)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    when,
    words,
  };
}

/** The words the inbox's templates use for codes (./help-request-words.ts). */
const words = {
  statusLabel,
  priorityLabel,
  categoryLabel,
  sixWeeksLabel,
  studentName,
  timelineWhat,
  timelineWho,
};

export interface AssigneeOption {
  id: string;
  label: string;
}

/** The assign select's options: by name, people with the same name told apart by their email. */
export function assigneeOptions(assignees: readonly AssigneeItem[]): AssigneeOption[] {
  const names = new Map<string, number>();
  for (const a of assignees) names.set(a.name, (names.get(a.name) ?? 0) + 1);
  return assignees.map((a) => ({
    id: a.id,
    label: (names.get(a.name) ?? 0) > 1 ? `${a.name} (${a.email})` : a.name,
  }));
}

/** The signed-in person, when they may be assigned (what "Assign to me" and the default choice are). */
export function assignableMe(caller: Caller, assignees: readonly AssigneeItem[]): string | undefined {
  const me = caller.kind === 'person' ? caller.personId : undefined;
  return assignees.some((a) => a.id === me) ? me : undefined;
}

/**
 * A help request's page: the request with its timeline, its student, the assign form's choices,
 * and (for a crisis request) the institution's crisis contacts.
 */
export function helpRequestView(
  request: HelpRequestDetail,
  assignees: readonly AssigneeItem[],
  caller: Caller,
  back: string,
  contacts: readonly CrisisContact[] = [],
) {
  return {
    title: `Help request: ${request.summary ?? request.id}`,
    request,
    back,
    contacts: request.priority === 'crisis' ? contacts : [],
    words,
    statuses,
    assignees: assigneeOptions(assignees),
    me: assignableMe(caller, assignees),
    errors: {} as Record<string, string>,
    values: {} as Record<string, unknown>,
    when,
  };
}

/**
 * The assignee an assignment form names: no one ("Unassign"), the signed-in person ("Assign to
 * me", whatever the select holds), or the person chosen in the select.
 */
export function assignmentOf(form: unknown, caller: Caller): { assignee_id: string | null } {
  if (text(form, 'unassign') === 'yes') return { assignee_id: null };
  if (text(form, 'to_me') === 'yes' && caller.kind === 'person') return { assignee_id: caller.personId };
  return { assignee_id: text(form, 'assignee_id') };
}
