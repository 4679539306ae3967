import { generateMarket } from '../../apps/simulator/src';
import { DEMO_EXAMPLES } from '../../apps/api/src/openapi/demo-examples';
import { generateOpenApiDocument } from '../../apps/api/src/openapi/generate-openapi';

/**
 * The OpenAPI document's examples name real things of `npm run demo` (seed hadron-demo,
 * mainnet-beta), so "Try it out" against the demo answers 200: checked against the simulator's
 * own record of the market it generates (its ground truth), not against the indexer.
 */
describe('OpenAPI examples are demo data', () => {
  const truth = generateMarket({ cluster: 'mainnet-beta', seed: 'hadron-demo', historySeconds: 900 }).groundTruth();
  const pool = truth.pools.find((p) => p.config === DEMO_EXAMPLES.pool);

  it('the example pool is a pool of the demo, with the example authority, mints and a split recipient', () => {
    expect(pool).toMatchObject({
      authority: DEMO_EXAMPLES.authority,
      quoting_authority: DEMO_EXAMPLES.quotingAuthority,
      mint_x: DEMO_EXAMPLES.mintX,
      mint_y: DEMO_EXAMPLES.mintY,
    });
    const splits = truth.fee_split_changes.filter((c) => c.pool_config === DEMO_EXAMPLES.pool);
    expect(JSON.stringify(splits)).toContain(DEMO_EXAMPLES.recipient);
  });

  it('every {address} parameter of the document uses it', async () => {
    const doc = await generateOpenApiDocument();
    const examples = Object.entries(doc.paths)
      .filter(([path]) => path.includes('{address}'))
      .map(([, item]) => (item.get?.parameters as Array<{ name: string; schema?: { example?: unknown } }>).find((p) => p.name === 'address')?.schema?.example);
    expect(examples.length).toBe(4);
    expect(new Set(examples)).toEqual(new Set([DEMO_EXAMPLES.pool]));
  });
});
