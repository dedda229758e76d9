// Crisis contacts (admins): the people and services a student on the crisis path of the student
// pages is shown first. The list is edited as rows of one form and saved at once, replacing the
// whole list as the admin API does; it works without scripts: "Add a row" posts the form back
// with one more blank row (nothing saved), a blank or ticked-for-removal row is left out, and the
// domain's problems with `contacts[i].field` are shown next to that field of the row they came
// from, every one at once, in sentences.
// Only a row holding a saved contact offers "Remove this contact" (a hidden `saved_i` carries
// which rows do through post-backs); on a new row it would mean nothing, since an empty row is
// not saved.
//
// The page reads and replaces the list with the student domain's functions and the request's
// institution; the list is checked row by row there, as for the admin API.
import type { FastifyRequest } from 'fastify';
import {
  contactProblems,
  listCrisisContacts,
  MAX_CRISIS_CONTACTS,
  replaceCrisisContacts,
} from '../../../domain/students/crisis-contacts.ts';
import { ApiError } from '../../../errors.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import {
  blank,
  contactsOf,
  crisisContactsView,
  placeRefusal,
  postedRows,
  problemErrors,
  type Row,
  savedRows,
} from './crisis-contacts-view.ts';
import { text } from './forms.ts';

const schema = { hide: true, params: PageParams };
const config = { access: 'admin' as const };

export function crisisContactRoutes(app: App): void {
  const render = (request: FastifyRequest, rows: Row[], extra: Record<string, unknown> = {}, status = 200) =>
    ctx(request).render('console/crisis-contacts.eta', { ...crisisContactsView(rows), ...extra }, status);

  app.get('/:slug/crisis-contacts', { config, schema }, async (request) => {
    const { rows, saved } = savedRows(await listCrisisContacts(request.deps.db, institutionOf(request).id));
    return render(request, rows, { saved });
  });

  app.post(
    '/:slug/crisis-contacts',
    {
      config: {
        ...config,
        formFields: ['rows', 'add', /^(name|phone|url|hours|description|remove|saved)_\d{1,3}$/],
      },
      schema,
    },
    async (request, reply) => {
      const { rows, removed, saved } = postedRows(request.body);
      if (text(request.body, 'add') === 'yes') {
        // Another row to fill in: nothing is saved, so nothing for the audit.
        request.unchanged = true;
        if (rows.length < MAX_CRISIS_CONTACTS) rows.push(blank());
        return render(request, rows, { focus: rows.length - 1, removed, saved });
      }
      const { contacts, rowOf } = contactsOf(rows, removed);
      // Every row's every problem at once (the domain's own checks); the domain refuses the first.
      const problems = contacts.flatMap(contactProblems);
      if (problems.length > 0) {
        return render(request, rows, { ...problemErrors(problems, rowOf), removed, saved }, 400);
      }
      try {
        await replaceCrisisContacts(request.deps, institutionOf(request).id, contacts);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        const problem = { ...error.extra, error: error.code } as Parameters<typeof placeRefusal>[0];
        return render(request, rows, { ...placeRefusal(problem, rowOf), removed, saved }, error.status);
      }
      return reply.redirect(
        `/console/${institutionOf(request).slug}/crisis-contacts?done=crisis_contacts_saved`,
        303,
      );
    },
  );
}
