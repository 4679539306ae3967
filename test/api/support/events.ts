import {
  parseHadronEvent,
  type Cluster,
  type EventOf,
  type FeeSplitRecipient,
  type HadronEvent,
  type PoolSnapshot,
  type TokenMetadata,
} from '@hadron/contracts';
import { fakeAddress, fakeSignature, swapData, type SwapDataSpec } from '@hadron/contracts/testing/sample-events';

/** Contract-valid events for API end-to-end tests; every builder validates what it returns. */

export const Q32 = 4_294_967_296n;
export const addr = (label: string): string => fakeAddress(`e2e:${label}`);

let seq = 0;
/** Slots follow block time so chain order and time order agree (`bump` orders facts within a second). */
export const slotAt = (blockTime: number | null, bump = 0): number => (blockTime === null ? 10 + bump : (blockTime - 1_700_000_000) * 4 + bump);

function valid<T extends HadronEvent>(e: T): T {
  const r = parseHadronEvent(JSON.parse(JSON.stringify(e)));
  if (!r.ok) throw new Error(`e2e event breaks the contract: ${r.reason}`);
  return e;
}

interface At {
  cluster?: Cluster;
  pool: string;
  blockTime: number | null;
  /** Orders several facts of one second (and sets the slot). */
  bump?: number;
}

function instructionEnvelope(at: At, ixIndex: number) {
  const signature = fakeSignature(`e2e:${at.pool}:${at.blockTime}:${at.bump ?? 0}:${++seq}`);
  return {
    id: `${signature}:${ixIndex}`,
    version: 1 as const,
    cluster: at.cluster ?? ('mainnet-beta' as const),
    pool: at.pool,
    slot: slotAt(at.blockTime, at.bump),
    blockTime: at.blockTime,
    signature,
    txIndex: 0,
    ixIndex,
    innerIndex: null,
    decoderVersion: 'e2e',
  };
}

function accountEnvelope(at: At, kind: string) {
  const slot = slotAt(at.blockTime, at.bump);
  return {
    id: `${at.pool}:${slot}:${kind}:${++seq}`,
    version: 1 as const,
    cluster: at.cluster ?? ('mainnet-beta' as const),
    pool: at.pool,
    slot,
    blockTime: at.blockTime,
    signature: null,
    txIndex: null,
    ixIndex: null,
    innerIndex: null,
    decoderVersion: 'e2e',
  };
}

export interface PoolSpec {
  tokenX: TokenMetadata;
  tokenY: TokenMetadata;
  authority: string;
  quotingAuthority: string | null;
  poolState?: PoolSnapshot['poolState'];
  midpriceQ32: bigint | null;
  spreadFactorQ32?: bigint | null;
}

export function poolDiscovered(at: At, p: PoolSpec): EventOf<'PoolDiscovered'> {
  const state = p.poolState ?? 'Initialized';
  return valid({
    ...accountEnvelope(at, 'discovered'),
    type: 'PoolDiscovered',
    data: {
      programId: addr('program'),
      programVersion: 1,
      seed: '1',
      authority: p.authority,
      quotingAuthority: p.quotingAuthority,
      oracle: addr(`oracle:${at.pool}`),
      tokenX: p.tokenX,
      tokenY: p.tokenY,
      vaultX: addr(`vault-x:${at.pool}`),
      vaultY: addr(`vault-y:${at.pool}`),
      poolState: state,
      poolStateRaw: ['Uninitialized', 'Initialized', 'Paused', 'RejectSwaps', 'Closed'].indexOf(state),
      oracleMode: 0,
      spreadConfigInitialized: true,
      hasPoolFee: false,
      feeConfig: addr('fee-config'),
      feePpm: 1000,
      feeRecipient: addr('fee-recipient'),
      midpriceQ32: p.midpriceQ32 === null ? null : p.midpriceQ32.toString(),
      spreadFactorQ32: p.spreadFactorQ32 === undefined || p.spreadFactorQ32 === null ? null : p.spreadFactorQ32.toString(),
    },
  });
}

export function midpriceUpdated(at: At, midQ32: bigint, spreadQ32: bigint, quotingAuthority: string): EventOf<'MidpriceUpdated'> {
  return valid({
    ...instructionEnvelope(at, 0),
    type: 'MidpriceUpdated',
    data: {
      instruction: 'UpdateMidpriceAndBaseSpread',
      oracle: addr(`oracle:${at.pool}`),
      quotingAuthority,
      sequence: String(slotAt(at.blockTime, at.bump)),
      midpriceQ32: midQ32.toString(),
      spreadFactorQ32: spreadQ32.toString(),
    },
  });
}

/** A swap of the e2e tests: SwapDataSpec with its split optional; the vaults and addresses are the builder's. */
export type SwapSpec = Omit<SwapDataSpec, 'split' | 'vaultXAfter' | 'vaultYAfter' | 'trader' | 'feeRecipientAta'> & { split?: FeeSplitRecipient[] | null };

export function swapExecuted(at: At, s: SwapSpec): EventOf<'SwapExecuted'> {
  return valid({
    ...instructionEnvelope(at, 1),
    type: 'SwapExecuted',
    data: swapData({ ...s, split: s.split ?? null, vaultXAfter: 1n, vaultYAfter: 1n, trader: addr('trader'), feeRecipientAta: addr('fee-ata') }),
  });
}

export function vaultBalancesChanged(at: At, x: bigint, y: bigint): EventOf<'VaultBalancesChanged'> {
  return valid({
    ...accountEnvelope(at, 'vaults'),
    type: 'VaultBalancesChanged',
    data: { vaultX: addr(`vault-x:${at.pool}`), vaultY: addr(`vault-y:${at.pool}`), amountX: x.toString(), amountY: y.toString() },
  });
}
