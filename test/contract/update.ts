// npm run contract:update: writes the served OpenAPI document as the committed contract.
import fs from 'node:fs';
import path from 'node:path';
import { servedOpenApi } from './served.ts';

const target = path.join(import.meta.dirname, 'openapi.json');
fs.writeFileSync(target, `${JSON.stringify(await servedOpenApi(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), target)}`);
