// The student pages at /app/: home (their six weeks and its events), raising a help request
// (with a crisis path), and their own requests. Students only: a signed-in staff member or
// operator is sent to /console/, and a browser without a session to sign-in.
//
// The scope resolves the session on every request and hands the student (institution and id
// from the session, never from the URL) to the student-app domain service; forms post with the
// CSRF token in `_csrf`, checked once the body is parsed. Pages render with their own layout and
// stylesheet (student.css); every failure is a page with a code, never a stack trace, and
// never a 5xx for bad input. Nothing here is cached by the browser or a proxy (no-store).

import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../domain/access/policy.ts';
import type { StudentRef } from '../../../domain/students/own-requests.ts';
import { type RaiseProblem, raiseProblems } from '../../../domain/students/service.ts';
import type { Services } from '../../../services.ts';
import { toApiError } from '../../context/errors.ts';
import { csrfToken, requireCsrf, sessionCookies } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';
import { viewsDir } from '../page-scope.ts';
import { studentViewHelpers } from './format.ts';

type StudentCaller = Extract<Caller, { kind: 'student' }>;

declare module 'fastify' {
  interface FastifyReply {
    studentPage(template: string, data: Record<string, unknown>): FastifyReply;
  }
}

function studentOf(request: FastifyRequest): StudentCaller & StudentRef {
  const caller = request.caller;
  if (caller?.kind !== 'student') throw new Error('studentOf: the request did not pass the student scope');
  return caller;
}

const formFields = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

const firstString = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : Array.isArray(value) && typeof value[0] === 'string'
      ? value[0]
      : undefined;

export function studentRoutes(app: App, services: Services): void {
  const cookies = sessionCookies(services.config.publicBaseUrl);
  const { studentApp } = services;

  app.register(
    async (scope) => {
      const pages = scope as App;
      await pages.register(view, {
        engine: {
          eta: new Eta({
            views: viewsDir,
            cache: services.config.logLevel !== 'debug',
            autoEscape: true,
          }),
        },
        root: viewsDir,
        layout: 'student/layout.eta',
        propertyName: 'studentPage',
      });

      /** Renders a page with what every student page shows (navigation, sign-out form). */
      const render = (
        request: FastifyRequest,
        reply: FastifyReply,
        template: string,
        data: Record<string, unknown>,
        status = 200,
      ) => {
        const caller = request.caller?.kind === 'student' ? request.caller : undefined;
        return reply
          .status(status)
          .header('cache-control', 'no-store')
          .studentPage(template, {
            ...studentViewHelpers(caller?.timeZone ?? 'UTC'),
            ...data,
            signedIn: Boolean(caller),
            actor: caller?.actor,
            csrf: caller ? (csrfToken(request, reply) ?? '') : '',
            // A form shown again after its post names the page it belongs to.
            path: typeof data.path === 'string' ? data.path : request.url.split('?')[0],
          });
      };

      const errorPage = (
        request: FastifyRequest,
        reply: FastifyReply,
        status: number,
        code: string,
        message: string,
      ) =>
        render(
          request,
          reply,
          'student/error.eta',
          {
            title: status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something went wrong',
            status,
            code,
            message,
            requestId: request.id,
          },
          status,
        );

      pages.addHook('onRequest', async (request, reply) => {
        const caller = await services.sessions.authenticate(cookies.read(request));
        if (!caller) {
          const back = encodeURIComponent(request.url.slice(0, 400));
          return reply.header('cache-control', 'no-store').redirect(`/auth/sign-in?return_to=${back}`, 303);
        }
        // The student pages are for students; staff and operators have the console.
        if (caller.kind !== 'student')
          return reply.header('cache-control', 'no-store').redirect('/console/', 303);
        request.caller = caller;
      });
      // Form posts carry `_csrf`; checked once the body is parsed.
      pages.addHook('preValidation', requireCsrf(app));

      pages.setErrorHandler((error, request, reply) => {
        const apiError = toApiError(error);
        if (apiError && apiError.status < 500) {
          const detail = String(apiError.extra.detail ?? 'The request could not be read.');
          return errorPage(request, reply, apiError.status, apiError.code, detail);
        }
        request.log.error({ err: error }, 'student page failed');
        return errorPage(
          request,
          reply,
          apiError?.status ?? 500,
          apiError?.code ?? 'internal_error',
          'The page could not be shown. Try again in a minute. If you need help urgently, use the contacts on the urgent help page.',
        );
      });
      pages.setNotFoundHandler(async (request, reply) =>
        errorPage(request, reply, 404, 'not_found', 'There is no page at this address.'),
      );

      pages.get('/', { schema: { hide: true } }, async (request, reply) => {
        const student = studentOf(request);
        const [home, requests] = await Promise.all([
          studentApp.home(student),
          studentApp.listRequests(student, { limit: 3, offset: 0 }),
        ]);
        return render(request, reply, 'student/home.eta', { title: 'Home', ...home, requests });
      });

      pages.get('/requests', { schema: { hide: true } }, async (request, reply) => {
        const requests = await studentApp.listRequests(studentOf(request));
        return render(request, reply, 'student/requests.eta', { title: 'My requests', requests });
      });

      const raiseForm = async (
        request: FastifyRequest,
        reply: FastifyReply,
        crisis: boolean,
        values: { description?: string; category?: string } = {},
        problems: RaiseProblem[] = [],
      ) => {
        const contacts = crisis ? await studentApp.crisisContacts(studentOf(request).institutionId) : [];
        return render(
          request,
          reply,
          'student/raise.eta',
          {
            title: crisis ? 'Urgent help' : 'Ask for help',
            path: crisis ? '/app/crisis' : '/app/requests/new',
            crisis,
            contacts,
            values,
            problems,
            problemOf: (field: string) => problems.find((p) => p.field === field)?.message,
          },
          problems.length > 0 ? 400 : 200,
        );
      };

      pages.get('/requests/new', { schema: { hide: true } }, async (request, reply) =>
        raiseForm(request, reply, false),
      );
      pages.get('/crisis', { schema: { hide: true } }, async (request, reply) =>
        raiseForm(request, reply, true),
      );

      pages.post('/requests', { schema: { hide: true } }, async (request, reply) => {
        const student = studentOf(request);
        const body = formFields(request.body);
        const input = {
          description: firstString(body.description),
          category: firstString(body.category),
          crisis: firstString(body.crisis) === '1',
        };
        const problems = raiseProblems(input);
        if (problems.length > 0) {
          return raiseForm(
            request,
            reply,
            input.crisis,
            { description: input.description?.slice(0, 4000), category: input.category?.slice(0, 50) },
            problems,
          );
        }
        const created = await studentApp.raise(student, input);
        return reply
          .header('cache-control', 'no-store')
          .redirect(`/app/requests/${created.id}?raised=1`, 303);
      });

      pages.get('/requests/:id', { schema: { hide: true } }, async (request, reply) => {
        const student = studentOf(request);
        const { id } = request.params as { id: string };
        const { request: own, history } = await studentApp.request(student, id);
        const crisis = own.priority === 'crisis';
        const contacts = crisis ? await studentApp.crisisContacts(student.institutionId) : [];
        const raised = (request.query as { raised?: unknown }).raised === '1';
        return render(request, reply, 'student/request.eta', {
          title: 'Help request',
          request: own,
          history,
          crisis,
          contacts,
          raised,
        });
      });
    },
    { prefix: '/app' },
  );
}
