// Crisis contacts (admins): the people and services a student on the crisis path of the student
// pages is shown first. The list is edited as rows of one form and saved with one PUT, the API's
// replace-the-whole-list call; it works without scripts: "Add a row" posts the form back with one
// more blank row (nothing saved), a blank or ticked-for-removal row is left out, and the API's
// error for `contacts[i].field` is shown next to that field of the row it came from. Only a row
// holding a saved contact offers "Remove this contact" (a hidden `saved_i` carries which rows
// do through post-backs); on a new row it would mean nothing, since an empty row is not saved.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authorize } from '../../../domain/access/policy.ts';
import { type CrisisContact, MAX_CRISIS_CONTACTS } from '../../../domain/students/crisis-contacts.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf } from './context.ts';
import { text } from './forms.ts';

const schema = { hide: true, params: Type.Object({ slug: Type.String() }) };
const FIELDS = ['name', 'phone', 'url', 'hours', 'description'] as const;
type Field = (typeof FIELDS)[number];
type Row = Record<Field, string>;
const LABELS: Record<Field, string> = {
  name: 'name',
  phone: 'phone number',
  url: 'web address',
  hours: 'hours',
  description: 'description',
};

const blank = (): Row => ({ name: '', phone: '', url: '', hours: '', description: '' });
const isBlank = (row: Row) => FIELDS.every((field) => row[field] === '');

/** The rows of a posted form, as typed (the `rows` field says how many the form had). */
function postedRows(body: unknown): { rows: Row[]; removed: boolean[]; saved: boolean[] } {
  const count = Math.min(Math.max(Number.parseInt(text(body, 'rows'), 10) || 0, 0), MAX_CRISIS_CONTACTS);
  const rows: Row[] = [];
  const removed: boolean[] = [];
  const saved: boolean[] = [];
  for (let i = 0; i < count; i++) {
    const row = blank();
    for (const field of FIELDS) row[field] = text(body, `${field}_${i}`);
    rows.push(row);
    removed.push(text(body, `remove_${i}`) === 'yes');
    saved.push(text(body, `saved_${i}`) === 'yes');
  }
  return { rows, removed, saved };
}

export function crisisContactRoutes(app: App, _services: Services): void {
  const apiPath = (request: FastifyRequest) =>
    `/admin/v1/institutions/${institutionOf(request).slug}/crisis-contacts`;

  const render = (
    request: FastifyRequest,
    rows: Row[],
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const c = ctx(request);
    return c.render(
      'console/crisis-contacts.eta',
      {
        title: 'Crisis contacts',
        rows,
        max: MAX_CRISIS_CONTACTS,
        errors: {},
        removed: [],
        saved: [],
        ...extra,
      },
      status,
    );
  };

  /**
   * The API lets staff read the contacts (they appear on crisis requests), but editing them is an
   * admin's: the page asks the access policy itself so staff get the 403 page, not a form to fail.
   */
  const adminsOnly = (request: FastifyRequest) =>
    authorize(ctx(request).caller, 'admin', institutionOf(request));

  app.get('/:slug/crisis-contacts', { config: { access: 'admin' }, schema }, async (request) => {
    adminsOnly(request);
    const { contacts } = await ctx(request).api.get<{ contacts: CrisisContact[] }>(apiPath(request));
    const rows = contacts.map((contact) => {
      const row = blank();
      for (const field of FIELDS) row[field] = contact[field] ?? '';
      return row;
    });
    const saved = rows.map(() => true);
    // One blank row to add a contact with, while there is room.
    if (rows.length < MAX_CRISIS_CONTACTS) rows.push(blank());
    return render(request, rows, { saved });
  });

  app.post('/:slug/crisis-contacts', { config: { access: 'admin' }, schema }, async (request, reply) => {
    adminsOnly(request);
    const { rows, removed, saved } = postedRows(request.body);
    if (text(request.body, 'add') === 'yes') {
      if (rows.length < MAX_CRISIS_CONTACTS) rows.push(blank());
      return render(request, rows, { focus: rows.length - 1, removed, saved });
    }
    // Which row each contact sent came from, so the API's `contacts[i]` finds its row again.
    const kept = rows.map((row, i) => ({ row, i })).filter(({ row, i }) => !removed[i] && !isBlank(row));
    const contacts = kept.map(({ row }) => Object.fromEntries(FIELDS.map((f) => [f, row[f] || null])));
    const answer = await ctx(request).api.call('PUT', apiPath(request), { contacts });
    if (answer.ok)
      return reply.redirect(
        `/console/${institutionOf(request).slug}/crisis-contacts?done=crisis_contacts_saved`,
        303,
      );
    const at = /^contacts\[(\d+)\](?:\.(\w+))?$/.exec(answer.problem.field ?? '');
    const row = at ? kept[Number(at[1])]?.i : undefined;
    if (at && row !== undefined) {
      const field = (FIELDS as readonly string[]).includes(at[2]) ? (at[2] as Field) : 'name';
      // The API counts the contacts sent; shown next to the field, the detail speaks of that field.
      const detail = (answer.problem.detail ?? 'this value was refused').replace(
        /contacts\[\d+\](\.\w+)?/g,
        (_all, sub?: string) =>
          sub ? `the ${LABELS[sub.slice(1) as Field] ?? sub.slice(1)}` : 'the contact',
      );
      const message = `${detail.charAt(0).toUpperCase()}${detail.slice(1)} (${answer.problem.error})`;
      return render(
        request,
        rows,
        { errors: { [`${field}_${row}`]: message }, removed, saved },
        answer.status,
      );
    }
    const message = `${answer.problem.detail ?? 'The contacts were refused.'} (${answer.problem.error})`;
    return render(request, rows, { formError: message, removed, saved }, answer.status);
  });
}
