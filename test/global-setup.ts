// `node --test --test-global-setup=test/global-setup.ts` (npm test): what the whole run shares.
// One Chromium for the browser files (browser/global-setup.ts), and with TEST_DATABASE_URL the
// migrated template that PostgreSQL test databases are cloned from (helpers/scratch-db.ts):
// built before the first file, dropped after the last.
import * as browser from './browser/global-setup.ts';
import { dropPostgresTemplate, postgresTemplate } from './helpers/scratch-db.ts';

export async function globalSetup(): Promise<void> {
  await browser.globalSetup();
  if (process.env.TEST_DATABASE_URL) await postgresTemplate(process.env.TEST_DATABASE_URL);
}

export async function globalTeardown(): Promise<void> {
  try {
    if (process.env.TEST_DATABASE_URL) await dropPostgresTemplate(process.env.TEST_DATABASE_URL);
  } finally {
    await browser.globalTeardown();
  }
}
