import { startTestApp, seedTenant } from './helpers/app.ts';
import { personBrowser } from './helpers/people.ts';
const ctx = await startTestApp('postgres');
const t = await seedTenant(ctx);
await ctx.db.query(`INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name)
  SELECT $1, $2, 'bulk' || g || '@example.edu', 'B' || g, 'Bulk', 'Person ' || g FROM generate_series(1, 100000) g`, [t.institutionId, t.cohortId]);
const admin = await personBrowser(ctx, t, { roles: ['admin'] });
await ctx.app.listen({ port: 0, host: '127.0.0.1' });
const port = (ctx.app.server.address() as { port: number }).port;
for (const url of [`/admin/v1/institutions/${t.slug}/students.csv`, `/console/${t.slug}/students.csv`]) {
  const start = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers: { cookie: admin.cookie } });
  let bytes = 0, chunks = 0;
  for await (const chunk of res.body!) { bytes += chunk.length; chunks++; }
  console.log(url.split('/').slice(-2).join('/'), res.status, Math.round(performance.now() - start), 'ms', bytes, 'bytes', chunks, 'chunks');
}
await ctx.close();
