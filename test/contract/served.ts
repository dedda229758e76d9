// The OpenAPI document as the service serves it, with the fixed base URL of a test configuration.
import { buildApp } from '../../src/app/app.ts';
import { createRuntime } from '../../src/runtime.ts';
import { testConfig } from '../helpers/app.ts';
import { openTestDb } from '../helpers/db.ts';

export async function servedOpenApi(): Promise<unknown> {
  const db = await openTestDb('pglite');
  const runtime = createRuntime({ db, config: testConfig({ publicBaseUrl: 'https://ssp.example.org' }) });
  const app = await buildApp(runtime, { logger: false });
  try {
    await app.ready();
    return JSON.parse(JSON.stringify(app.swagger()));
  } finally {
    await app.close();
    await runtime.close();
    await db.close();
  }
}
