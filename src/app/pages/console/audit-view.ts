// What the audit page shows, built by pure functions: the filters a URL asks for (checked with
// one schema, every problem a sentence), the domain filter they stand for (dates are the
// institution's days), and the rows in words and the institution's time.
import { Type } from 'typebox';
import { type AuditFilter, type AuditKind, auditKinds } from '../../../domain/audit/trail.ts';
import { StringEnum } from '../../../lib/schema.ts';
import { checkForm, type FieldText } from '../form-check.ts';
import { adminSentence } from './audit-sentences.ts';
import { priorityLabel, statusLabel } from './help-request-words.ts';
import { dayRange, timesIn } from './institution-time.ts';
import type { Listing } from './listing.ts';

export const AuditFilters = Type.Object({
  kind: Type.Optional(StringEnum(auditKinds)),
  person: Type.Optional(
    Type.String({ pattern: '^(operator|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$' }),
  ),
  from: Type.Optional(Type.String({ format: 'date' })),
  to: Type.Optional(Type.String({ format: 'date' })),
});

const filterTexts: Record<string, FieldText> = {
  kind: { label: 'Audit', hint: 'Choose the admin audit or the help-request audit' },
  person: { label: 'Person', hint: 'Choose a person from the list' },
  from: { label: 'From', hint: 'From must be a date (YYYY-MM-DD)' },
  to: { label: 'To', hint: 'To must be a date (YYYY-MM-DD)' },
};

export interface AuditQuery {
  kind: AuditKind;
  person?: string;
  from?: string;
  to?: string;
}

export interface Person {
  id: string;
  name: string;
  email: string;
  removed: boolean;
}

/** The URL's filters, or the sentences refusing them. */
export function auditQuery(
  query: Record<string, unknown>,
): { ok: true; value: AuditQuery } | { ok: false; values: Record<string, string>; problem: string } {
  const values: Record<string, string> = {};
  for (const name of ['kind', 'person', 'from', 'to']) {
    const value = query[name];
    if (typeof value === 'string' && value !== '') values[name] = value;
  }
  const checked = checkForm(AuditFilters, values, filterTexts);
  if (!checked.ok) return { ok: false, values, problem: Object.values(checked.errors).join('. ') };
  if (values.from && values.to && values.to < values.from)
    return { ok: false, values, problem: 'To must be the same day as From or later' };
  return { ok: true, value: { kind: 'admin', ...checked.value } };
}

/** The domain's filter: the person named (unknown ids match no one), the dates in the zone. */
export function auditFilter(
  query: AuditQuery,
  people: readonly Person[],
  zone: string,
): AuditFilter | undefined {
  let person: AuditFilter['person'];
  if (query.person === 'operator') person = { kind: 'operator' };
  else if (query.person) {
    const found = people.find((p) => p.id === query.person);
    if (!found) return undefined;
    person = { kind: 'person', id: found.id, name: found.name };
  }
  return { person, ...dayRange(zone, query.from, query.to) };
}

/** The page's URL with these filters (the pager's and the CSV link's base). */
export function auditUrl(base: string, query: Partial<AuditQuery>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  return `${base}?${params.toString()}`;
}

/**
 * An admin audit action as people read it: the method and the resource acted on, and whether it
 * came through the console or the API (`PATCH /admin/v1/institutions/:slug/people/:id` reads
 * "PATCH people/:id", through the API).
 */
export function adminActionWords(action: string): { what: string; through: 'console' | 'API' } {
  const [method = '', route = ''] = action.split(' ');
  const through = route.startsWith('/console') ? 'console' : 'API';
  const what = route
    .replace(/^\/admin\/v1\/institutions\/:slug\/?/, '')
    .replace(/^\/console\/:slug\/?/, '')
    .replace(/^\/admin\/v1\/?/, '');
  return { what: `${method} ${what || 'institution'}`, through };
}

/** A help-request audit entry in words. */
export function helpRequestEntryWords(entry: {
  kind: string;
  action: string;
  from_status: string | null;
  to_status: string | null;
  assigned_to: string | null;
}): string {
  if (entry.kind === 'note') return 'Note added';
  if (entry.kind === 'reply') return 'Replied to the student';
  if (entry.kind === 'student_message') return 'The student wrote';
  switch (entry.action) {
    case 'created':
      return `Raised (${statusLabel(entry.to_status ?? 'new')})`;
    case 'status':
      return `Status ${statusLabel(entry.from_status ?? '')} to ${statusLabel(entry.to_status ?? '')}`;
    case 'assign':
      return `Assigned to ${entry.assigned_to ?? 'someone no longer listed'}`;
    case 'unassign':
      return 'Unassigned';
    case 'escalated':
      return 'Escalated: a crisis request nobody picked up within the window';
    default:
      return entry.from_status && entry.to_status && entry.from_status !== entry.to_status
        ? `Help desk: ${entry.action.replaceAll('_', ' ')} (${statusLabel(entry.from_status)} to ${statusLabel(entry.to_status)})`
        : `Help desk: ${entry.action.replaceAll('_', ' ')}`;
  }
}

export function auditView<T>(options: {
  base: string;
  query: Partial<AuditQuery> & { kind?: string };
  people: readonly Person[];
  listing: Listing<T>;
  zone: string;
}) {
  const { base, query, people, listing, zone } = options;
  return {
    title: 'Audit',
    kind: query.kind === 'help_requests' ? 'help_requests' : 'admin',
    query,
    people,
    listing,
    zone,
    self: auditUrl(base, query),
    csv: auditUrl(`${base}.csv`, query),
    when: timesIn(zone),
    words: { adminActionWords, adminSentence, helpRequestEntryWords, priorityLabel },
  };
}
