// Admin API: who is asking (GET /admin/v1/me): the operator, a person with their roles and
// permissions, or a student; and the CSRF token a session's writes carry.
import { Type } from 'typebox';
import type { Caller } from '../../../domain/access/policy.ts';
import { callerOf } from '../../context/request-context.ts';
import { csrfToken } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';
import { adminRoute } from '../route-helpers.ts';
import { errorResponses, Uuid } from '../schemas.ts';

const Me = Type.Object({
  kind: Type.Union([Type.Literal('operator'), Type.Literal('person'), Type.Literal('student')]),
  actor: Type.String({ description: 'The name recorded in audit trails' }),
  person_id: Type.Optional(Uuid()),
  student_id: Type.Optional(Uuid()),
  institution_id: Type.Optional(Uuid()),
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
  session_id: Type.Optional(Uuid('Present when signed in with a session cookie')),
  csrf_token: Type.Optional(
    Type.String({
      description: 'Send as x-csrf-token on every state-changing request made with the session cookie',
    }),
  ),
});

function describe(caller: Caller) {
  switch (caller.kind) {
    case 'operator':
      return {
        kind: caller.kind,
        actor: caller.actor,
        person_id: caller.personId,
        roles: ['operator'],
        permissions: [],
      };
    case 'person':
      return {
        kind: caller.kind,
        actor: caller.actor,
        person_id: caller.personId,
        institution_id: caller.institutionId,
        roles: [...caller.roles],
        permissions: [...caller.permissions],
      };
    case 'student':
      return {
        kind: caller.kind,
        actor: caller.actor,
        student_id: caller.studentId,
        institution_id: caller.institutionId,
        roles: ['student'],
        permissions: [],
      };
  }
}

export function adminMeRoutes(app: App): void {
  const tags = ['admin: people and sign-in'];

  app.get(
    '/admin/v1/me',
    adminRoute('self', tags, {
      summary: 'Who is asking: operator, person (roles, permissions) or student',
      response: { 200: Me, ...errorResponses(401) },
    }),
    async (request, reply) => {
      const caller = callerOf(request);
      return { ...describe(caller), session_id: caller.sessionId, csrf_token: csrfToken(request, reply) };
    },
  );
}
