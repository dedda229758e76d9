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
import { adminSecurity, errorResponses, SlugParams } from '../schemas.ts';

export function adminCrisisContactRoutes(app: App): void {
  const tags = ['admin: student app'];
  const security = adminSecurity;
  const path = '/admin/v1/institutions/:slug/crisis-contacts';

  app.get(
    path,
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Read the crisis contacts students see on the crisis path',
        params: SlugParams,
        response: { 200: ContactList, ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ contacts: await listCrisisContacts(request.deps.db, institutionOf(request).id) }),
  );

  app.put(
    path,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Replace the crisis contacts',
        description:
          `Up to ${MAX_CRISIS_CONTACTS} contacts, in the order students see them. Each has a name and a phone ` +
          'number or a web address (or both); hours and description are optional. An empty list removes them ' +
          '(the crisis path then tells students to call the local emergency number). A bad contact is 400 ' +
          'invalid_field naming it, for example contacts[1].url.',
        params: SlugParams,
        // The envelope only: each contact is checked in the domain, so any shape is a 400 naming it.
        body: CrisisContactsBody,
        response: { 200: ContactList, ...errorResponses(400, 401, 404) },
      },
    },
    async (request): Promise<{ contacts: Contact[] }> => ({
      contacts: await replaceCrisisContacts(request.deps, institutionOf(request).id, request.body.contacts),
    }),
  );
}
