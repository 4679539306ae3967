export { generateMarket, startSimulator, SIM_CLUSTERS, type RunningSimulator, type SimCluster, type SimulatorOptions } from './simulator';
export { SimulatedMarket, DEFAULT_MARKET_OPTIONS, type MarketOptions } from './market/market-generator';
export { SIM_ONLY_SWAP_FIELDS, tokenNamesAt } from './market/ground-truth';
export type * from './market/ground-truth';
export { FAULT_KINDS, type FaultKind, type FaultOptions } from './rpc/faults';
export { HADRON_ERRORS, SIM_SET_POOL_STATE_TAG, SIM_UPDATE_FEE_CONFIG_TAG } from './market/hadron-extra-instructions';
export { decodeMetadata } from './spl/spl-accounts';
export { METAPLEX_PROGRAM, SIM_PROGRAM_IDS } from './spl/well-known';
