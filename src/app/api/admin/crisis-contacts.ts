// Admin API: an institution's crisis contacts, shown to students on the crisis path of the
// student pages (docs/student-app.md). The list is replaced as a whole.
import {
  type CrisisContact as Contact,
  CrisisContactList as ContactList,
  CrisisContactsBody,
  listCrisisContacts,
  MAX_CRISIS_CONTACTS,
  replaceCrisisContacts,
} from '../../../domain/students/crisis-contacts.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';

export function adminCrisisContactRoutes(app: App): void {
  const tags = ['admin: student app'];
  const path = '/admin/v1/institutions/:slug/crisis-contacts';

  app.get(
    path,
    institutionRoute('read', tags, {
      summary: 'Read the crisis contacts students see on the crisis path',
      response: { 200: ContactList, ...errorResponses(401, 404) },
    }),
    async (request) => ({ contacts: await listCrisisContacts(request.deps.db, institutionOf(request).id) }),
  );

  app.put(
    path,
    institutionRoute('admin', tags, {
      summary: 'Replace the crisis contacts',
      description:
        `Up to ${MAX_CRISIS_CONTACTS} contacts, in the order students see them. Each has a name and a phone ` +
        'number or a web address (or both); hours and description are optional. An empty list removes them ' +
        '(the crisis path then tells students to call the local emergency number). A bad contact is 400 ' +
        'invalid_field naming it, for example contacts[1].url.',
      // The envelope only: each contact is checked in the domain, so any shape is a 400 naming it.
      body: CrisisContactsBody,
      response: { 200: ContactList, ...errorResponses(400, 401, 404) },
    }),
    async (request): Promise<{ contacts: Contact[] }> => ({
      contacts: await replaceCrisisContacts(request.deps, institutionOf(request).id, request.body.contacts),
    }),
  );
}
