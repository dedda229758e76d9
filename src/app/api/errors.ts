// The JSON API's answer to every failure: the flat error body, with the status of the code's
// table (src/errors.ts); 5xx never carry internals. It is the application's default answer, so a
// URL that matches no route gets it too; the pages answer their own failures with pages.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { methodNotAllowed } from '../context/allowed-methods.ts';
import { DATABASE_RETRY_AFTER_SECONDS, toApiError } from '../context/errors.ts';

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError) {
      if (apiError.status >= 500) request.log.warn({ code: apiError.code }, 'request failed');
      if (apiError.code === 'database_unavailable') {
        reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      }
      return reply.status(apiError.status).send(apiError.body());
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .status(500)
      .send({ error: 'internal_error', detail: 'an unexpected error occurred; retry later' });
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = methodNotAllowed(app, request.method, request.url);
    if (allowed) {
      const error = new ApiError('method_not_allowed', {
        detail: `${request.url.split('?')[0]} takes ${allowed.join(', ')}, not ${request.method}`,
        allowed,
      });
      return reply.status(error.status).header('allow', allowed.join(', ')).send(error.body());
    }
    reply
      .status(404)
      .send({ error: 'not_found', detail: `no route for ${request.method} ${request.url.split('?')[0]}` });
  });
}
