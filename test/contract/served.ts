// The OpenAPI document as the service serves it, with the fixed base URL of a test configuration.
import { buildApp } from '../../src/app/app.ts';
import { createServices } from '../../src/services.ts';
import { testConfig } from '../helpers/app.ts';
import { openTestDb } from '../helpers/db.ts';

export async function servedOpenApi(): Promise<unknown> {
  const db = await openTestDb('pglite');
  const services = createServices({ db, config: testConfig({ publicBaseUrl: 'https://ssp.example.org' }) });
  const app = await buildApp(services, { logger: false });
  try {
    await app.ready();
    return JSON.parse(JSON.stringify(app.swagger()));
  } finally {
    await app.close();
    await services.close();
    await db.close();
  }
}
