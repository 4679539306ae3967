/**
 * Examples in the OpenAPI document, taken from `npm run demo` (the simulated market of seed
 * `hadron-demo`, mainnet-beta), so "Try it out" against a demo answers 200 with the same kind of
 * data. test/api/openapi-examples.e2e-spec.ts checks them against the simulator's market.
 */
export const DEMO_EXAMPLES = {
  /** A SOL/USDC pool with a two-recipient fee split. */
  pool: '3Fiedr2roFUT2T7t6n4QurUJXhRMrJ168zLng3yEva7N',
  authority: '5HsmoAM2yUTVSSYcSG7r2ASpbX7aVBB1j1Scg8cP3cGa',
  quotingAuthority: '4XpY3peDZ29w9Fdo2TTQ8Qyhb8eJqYartEWYDiyZv86G',
  /** The largest recipient of the pool's fee split. */
  recipient: 'HdKSTtXdHt35eDZapepRScXWnNZD84zuZuphQkP52nSn',
  mintX: 'So11111111111111111111111111111111111111112',
  mintY: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
} as const;
