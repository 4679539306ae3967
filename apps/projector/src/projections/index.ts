import type { ProjectionDefinition } from '../projection';
import { midpriceProjection } from './midprice/midprice.projection';
import { poolsProjection } from './pools/pools.projection';
import { swapsProjection } from './swaps/swaps.projection';

/** Every read model the projector maintains, each in its own consumer group and builds. */
export const ALL_PROJECTIONS: readonly ProjectionDefinition[] = [poolsProjection, swapsProjection, midpriceProjection];

export function projectionByName(name: string): ProjectionDefinition {
  const def = ALL_PROJECTIONS.find((p) => p.name === name);
  if (!def) throw new Error(`unknown projection "${name}"; known: ${ALL_PROJECTIONS.map((p) => p.name).join(', ')}`);
  return def;
}
