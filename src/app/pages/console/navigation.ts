// The console's navigation: the pages a caller may open, grouped as the layout shows them. It
// hides only what the access policy would refuse (the same `grants` the request context asks),
// so a link is never shown for a page that answers "not allowed".
import { type Access, type Caller, grants } from '../../../domain/access/policy.ts';
import type { Institution } from '../../../domain/institutions/schemas.ts';

export type StaffCaller = Exclude<Caller, { kind: 'student' }>;

interface NavLink {
  href: string;
  label: string;
  current: boolean;
}

/** A link, or a labelled group of links (the layout nests a group's links under its label). */
export type NavItem = NavLink | { group: string; items: NavLink[] };

export function navigation(path: string, caller: StaffCaller, institution?: Institution): NavItem[] {
  const may = (access: Access) => caller.kind === 'operator' || grants(caller, access);
  const items: { href: string; label: string; show: boolean; group?: string }[] = [];
  if (caller.kind === 'operator') items.push({ href: '/console/', label: 'Institutions', show: true });
  if (institution) {
    const base = `/console/${institution.slug}`;
    items.push(
      { href: `${base}/`, label: 'Integration health', show: may('admin') },
      { href: `${base}/inbox`, label: 'Help requests', show: may('helpdesk') },
      // A person's own notification settings (the operator has none).
      {
        href: `${base}/me/notifications`,
        label: 'Your notifications',
        show: caller.kind === 'person' && may('helpdesk'),
      },
      { href: `${base}/runs`, label: 'Push history', show: may('admin') },
      { href: `${base}/full-syncs`, label: 'Full syncs', show: may('admin') },
      { href: `${base}/secrets`, label: 'Secrets', show: may('admin') },
      { href: `${base}/webhooks`, label: 'Webhooks', show: may('integrations') },
      { href: `${base}/oneroster-source`, label: 'OneRoster source', show: may('integrations') },
      { href: `${base}/people`, label: 'People', show: may('admin') },
      { href: `${base}/audit`, label: 'Audit', show: may('admin') },
      { href: `${base}/privacy`, label: 'Privacy', show: may('admin') },
      // What students see: the calendar feeds, the crisis path's contacts, cohort start dates.
      { href: `${base}/calendar-feeds`, label: 'Calendar feeds', show: may('admin') },
      { href: `${base}/crisis-contacts`, label: 'Crisis contacts', show: may('admin') },
      { href: `${base}/notifications`, label: 'Notifications', show: may('admin') },
      { href: `${base}/saved-replies`, label: 'Saved replies', show: may('admin') },
      { href: `${base}/response-targets`, label: 'Response targets', show: may('admin') },
      { href: `${base}/cohorts`, label: 'Cohorts', show: may('admin') },
    );
    // What the SIS pushed, read through the API's listings (staff and admins may read them).
    for (const [path, label] of [
      ['students', 'Students'],
      ['programs', 'Programs'],
      ['campuses', 'Campuses'],
      ['terms', 'Terms'],
      ['units', 'Units'],
      ['enrolments', 'Enrolments'],
    ])
      items.push({ href: `${base}/${path}`, label, show: may('read'), group: 'Data' });
  }
  const visible = items.filter((item) => item.show);
  // The longest matching prefix is the current page (the health page's `/` matches everything).
  const current = visible
    .filter(
      (item) =>
        path === item.href || (item.href.endsWith('/') ? path === item.href : path.startsWith(item.href)),
    )
    .sort((a, b) => b.href.length - a.href.length)[0];
  const nav: NavItem[] = [];
  for (const { href, label, group } of visible) {
    const link = { href, label, current: href === current?.href };
    if (!group) {
      nav.push(link);
      continue;
    }
    const last = nav.at(-1);
    if (last && 'group' in last && last.group === group) last.items.push(link);
    else nav.push({ group, items: [link] });
  }
  return nav;
}
