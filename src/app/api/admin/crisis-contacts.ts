// Admin API: an institution's crisis contacts, shown to students on the crisis path of the
// student pages (docs/student-app.md). The list is replaced as a whole.
import { Type } from 'typebox';
import {
  type CrisisContact as Contact,
  MAX_CRISIS_CONTACTS,
} from '../../../domain/students/crisis-contacts.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminSecurity, errorResponses, SlugParams } from '../schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const CrisisContact = Type.Object({
  name: Type.String({ description: 'Who to contact (1 to 200 characters)', examples: ['Campus security'] }),
  phone: Nullable(Type.String({ description: 'A phone number (digits, spaces, + ( ) - .; up to 50)' })),
  url: Nullable(Type.String({ description: 'An https:// or http:// address (up to 500)' })),
  hours: Nullable(Type.String({ description: 'When they answer, as text (up to 200)', examples: ['24/7'] })),
  description: Nullable(Type.String({ description: 'What they help with (up to 1000)' })),
});

const ContactList = Type.Object({ contacts: Type.Array(CrisisContact) });

export function adminCrisisContactRoutes(app: App, services: Services): void {
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
    async (request) => ({ contacts: await services.studentApp.crisisContacts(institutionOf(request).id) }),
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
        body: Type.Object({ contacts: Type.Array(Type.Unknown()) }),
        response: { 200: ContactList, ...errorResponses(400, 401, 404) },
      },
    },
    async (request): Promise<{ contacts: Contact[] }> => ({
      contacts: await services.studentApp.replaceCrisisContacts(
        institutionOf(request).id,
        request.body.contacts,
      ),
    }),
  );
}
