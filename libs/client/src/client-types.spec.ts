import { readFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, generateClientTypes, OPENAPI_DOCUMENT } from '../scripts/generate-client-types';

/** The committed libs/client/src/openapi.ts must be what apps/api/openapi.json generates (STYLE: generated files are checked). */
describe('typed client', () => {
  const document = readFileSync(OPENAPI_DOCUMENT, 'utf8');

  it('libs/client/src/openapi.ts matches apps/api/openapi.json (regenerate: npm run client:generate)', () => {
    if (generateClientTypes(document) !== readFileSync(CLIENT_TYPES_FILE, 'utf8')) {
      throw new Error('libs/client/src/openapi.ts is out of date with apps/api/openapi.json: run `npm run client:generate` and commit the result');
    }
  });

  it('sees a change of the document: a new pool field reaches the generated types', () => {
    const changed = JSON.parse(document);
    changed.components.schemas.PoolDto.properties.drift_probe = { type: 'string' };
    const text = generateClientTypes(JSON.stringify(changed));
    expect(text).not.toBe(readFileSync(CLIENT_TYPES_FILE, 'utf8'));
    expect(text).toContain('drift_probe?: string;');
  });

  it('every int64 field of the document is named *_amount or *_raw, the fields StringAmounts<T> turns into strings', () => {
    const schemas = JSON.parse(document).components.schemas as Record<string, { properties?: Record<string, { format?: string }> }>;
    const int64 = Object.entries(schemas).flatMap(([name, s]) =>
      Object.entries(s.properties ?? {})
        .filter(([, p]) => p.format === 'int64')
        .map(([prop]) => `${name}.${prop}`),
    );
    expect(int64.length).toBeGreaterThan(0);
    expect(int64.filter((f) => !/_(amount|raw)$/.test(f))).toEqual([]);
  });
});
