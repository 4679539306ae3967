// Regenerates apps/api/openapi.json from the code (npm run openapi:generate). The unit test
// apps/api/src/openapi/openapi.spec.ts fails while the committed file differs from the code.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateOpenApiDocument, openApiText } from '../src/openapi/generate-openapi';

void generateOpenApiDocument().then(
  (doc) => {
    const file = resolve(__dirname, '..', 'openapi.json');
    writeFileSync(file, openApiText(doc));
    process.stdout.write(`wrote ${file}\n`);
  },
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
