import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateOpenApiDocument, openApiText } from './generate-openapi';

/** The committed apps/api/openapi.json must be what the code generates (STYLE: generated files are checked). */
describe('OpenAPI document', () => {
  it('apps/api/openapi.json matches the code (regenerate: npm run openapi:generate)', async () => {
    const generated = openApiText(await generateOpenApiDocument());
    const committed = readFileSync(resolve(__dirname, '../../openapi.json'), 'utf8');
    if (generated !== committed) {
      throw new Error('apps/api/openapi.json is out of date with the code: run `npm run openapi:generate` and commit the result');
    }
  });

  it('documents every endpoint, and every schema property has an example', async () => {
    const doc = await generateOpenApiDocument();
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/health',
        '/health/ready',
        '/metrics',
        '/pools',
        '/pools/{address}',
        '/pools/{address}/fees',
        '/pools/{address}/midprice/history',
        '/pools/{address}/volume/history',
      ].sort(),
    );
    const missing: string[] = [];
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      for (const [prop, def] of Object.entries((schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {})) {
        const isRef = '$ref' in def || (def.type === 'array' && def.items && '$ref' in (def.items as object)) || 'allOf' in def;
        if (!isRef && def.example === undefined) missing.push(`${name}.${prop}`);
      }
    }
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const p of item.get?.parameters ?? []) {
        const param = p as { name: string; example?: unknown; schema?: { example?: unknown } };
        if (param.example === undefined && param.schema?.example === undefined) missing.push(`${path} ${param.name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
