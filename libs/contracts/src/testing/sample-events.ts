import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import type {
  Cluster,
  FeeSplitChangedV1,
  HadronEvent,
  MidpriceUpdatedV1,
  PoolDiscoveredV1,
  SwapExecutedV1,
  TokenMetadataChangedV1,
  VaultBalancesChangedV1,
} from '../events';

/** Deterministic, contract-valid events for tests of the log and projections. Not chain-accurate. */

/** A deterministic base58 32-byte key for `label` (looks like a pubkey; not on-curve checked). */
export function fakeAddress(label: string): string {
  return bs58.encode(createHash('sha256').update(`address:${label}`).digest());
}

export function fakeSignature(label: string): string {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return bs58.encode(Buffer.concat([h(`sig-a:${label}`), h(`sig-b:${label}`)]));
}

const base = (cluster: Cluster, pool: string, n: number, ix = 0) => ({
  version: 1 as const,
  cluster,
  pool,
  slot: 1000 + n,
  blockTime: 1_763_800_000 + Math.floor(n / 3),
  signature: fakeSignature(`${cluster}:${pool}:${n}`),
  txIndex: n % 7,
  ixIndex: ix,
  innerIndex: null,
  decoderVersion: 'test',
});

export function sampleMidpriceUpdated(cluster: Cluster, pool: string, n: number): MidpriceUpdatedV1 {
  const b = base(cluster, pool, n);
  return {
    ...b,
    id: `${b.signature}:0`,
    type: 'MidpriceUpdated',
    data: {
      instruction: 'UpdateMidpriceAndBaseSpread',
      oracle: fakeAddress(`oracle:${pool}`),
      quotingAuthority: fakeAddress('quoter'),
      sequence: String(n),
      midpriceQ32: String(644245094400n + BigInt(n) * 4294967n),
      spreadFactorQ32: '4294537799',
    },
  };
}

/** A swap as tests describe it: the side, the pool's mints and decimals, amounts in atoms (input gross, fee taken from the input). */
export interface SwapDataSpec {
  side: 'buy' | 'sell';
  mintX: string;
  mintY: string;
  decimalsX: number;
  decimalsY: number;
  amountIn: bigint;
  fee: bigint;
  amountOut: bigint;
  midQ32: bigint | null;
  split: SwapExecutedV1['data']['feeSplit'];
  vaultXAfter: bigint;
  vaultYAfter: bigint;
  trader: string;
  feeRecipientAta: string;
}

/** A SwapExecuted's `data` for `s`: a sell pays X for Y, a buy Y for X; the fee in the input mint; no spread factor. */
export function swapData(s: SwapDataSpec): SwapExecutedV1['data'] {
  const [inputMint, outputMint] = s.side === 'sell' ? [s.mintX, s.mintY] : [s.mintY, s.mintX];
  return {
    side: s.side,
    trader: s.trader,
    inputMint,
    outputMint,
    amountIn: s.amountIn.toString(),
    amountInToVault: (s.amountIn - s.fee).toString(),
    amountOut: s.amountOut.toString(),
    feeRaw: s.fee.toString(),
    feeMint: inputMint,
    feeRecipientAta: s.feeRecipientAta,
    decimalsX: s.decimalsX,
    decimalsY: s.decimalsY,
    midpriceQ32: s.midQ32 === null ? null : s.midQ32.toString(),
    spreadFactorQ32: null,
    vaultXAfter: s.vaultXAfter.toString(),
    vaultYAfter: s.vaultYAfter.toString(),
    feeSplit: s.split,
  };
}

export function sampleSwap(cluster: Cluster, pool: string, n: number): SwapExecutedV1 {
  const b = base(cluster, pool, n, 1);
  const sell = n % 2 === 0;
  const amountIn = BigInt(1_000_000 + n * 17);
  const fee = (amountIn * 10n) / 1_000_000n;
  return {
    ...b,
    id: `${b.signature}:1`,
    type: 'SwapExecuted',
    data: {
      side: sell ? 'sell' : 'buy',
      trader: fakeAddress(`trader:${n % 5}`),
      inputMint: fakeAddress(sell ? 'mint-x' : 'mint-y'),
      outputMint: fakeAddress(sell ? 'mint-y' : 'mint-x'),
      amountIn: amountIn.toString(),
      amountInToVault: (amountIn - fee).toString(),
      amountOut: String(150_000 + n),
      feeRaw: fee.toString(),
      feeMint: fakeAddress(sell ? 'mint-x' : 'mint-y'),
      feeRecipientAta: fakeAddress('fee-ata'),
      decimalsX: 9,
      decimalsY: 6,
      midpriceQ32: '644245094400',
      spreadFactorQ32: '4294537799',
      vaultXAfter: String(10n ** 12n + BigInt(n)),
      vaultYAfter: String(10n ** 11n - BigInt(n)),
      feeSplit: null,
    },
  };
}

export function sampleVaultBalancesChanged(cluster: Cluster, pool: string, n: number): VaultBalancesChangedV1 {
  const b = base(cluster, pool, n, 2);
  return {
    ...b,
    id: `${b.signature}:2`,
    type: 'VaultBalancesChanged',
    data: {
      vaultX: fakeAddress(`vx:${pool}`),
      vaultY: fakeAddress(`vy:${pool}`),
      amountX: String(5n * 10n ** 18n + BigInt(n)),
      amountY: '18446744073709551615',
    },
  };
}

export function samplePoolDiscovered(cluster: Cluster, pool: string, n: number): PoolDiscoveredV1 {
  const b = { ...base(cluster, pool, n), signature: null, txIndex: null, ixIndex: null };
  const token = (label: string, decimals: number) => ({
    mint: fakeAddress(`mint-${label}`),
    symbol: label.toUpperCase(),
    name: `Token ${label}`,
    decimals,
    icon: '',
  });
  return {
    ...b,
    id: `${pool}:${b.slot}`,
    type: 'PoolDiscovered',
    data: {
      programId: fakeAddress('program'),
      programVersion: n % 2 === 0 ? 2 : 1,
      seed: String(n),
      authority: fakeAddress('authority'),
      quotingAuthority: fakeAddress('quoter'),
      oracle: fakeAddress(`oracle:${pool}`),
      tokenX: token('x', 9),
      tokenY: token('y', 6),
      vaultX: fakeAddress(`vx:${pool}`),
      vaultY: fakeAddress(`vy:${pool}`),
      poolState: 'Initialized',
      poolStateRaw: 1,
      oracleMode: 0,
      spreadConfigInitialized: false,
      hasPoolFee: true,
      feeConfig: fakeAddress(`fee-config:${pool}`),
      feePpm: 10,
      feeRecipient: fakeAddress('fee-recipient'),
      midpriceQ32: null,
      spreadFactorQ32: '4294537799',
    },
  };
}

export function sampleFeeSplitChanged(cluster: Cluster, pool: string, n: number): FeeSplitChangedV1 {
  const b = { ...base(cluster, pool, n), signature: null, txIndex: null, ixIndex: null };
  return {
    ...b,
    id: `${fakeAddress(`fee-config:${pool}`)}:${b.slot}`,
    type: 'FeeSplitChanged',
    data: {
      feeConfig: fakeAddress(`fee-config:${pool}`),
      feePpm: 10,
      recipients: [
        { recipient: fakeAddress('recipient-a'), ppm: 700_000 },
        { recipient: fakeAddress('recipient-b'), ppm: 300_000 },
      ],
    },
  };
}

export function sampleTokenMetadataChanged(cluster: Cluster, pool: string, n: number): TokenMetadataChangedV1 {
  const b = { ...base(cluster, pool, n), signature: null, txIndex: null, ixIndex: null };
  const mint = fakeAddress('mint-x');
  return {
    ...b,
    id: `${pool}:metadata:${mint}:${b.slot}`,
    type: 'TokenMetadataChanged',
    data: { mint, symbol: `X${n}`, name: `Token x, renamed ${n}`, decimals: 9, icon: '' },
  };
}

/** `count` events round-robin over `pools`, kinds rotating: midprice, swap, vault balances. */
export function sampleEventStream(cluster: Cluster, pools: readonly string[], count: number, offset = 0): HadronEvent[] {
  const out: HadronEvent[] = [];
  for (let i = offset; i < offset + count; i++) {
    const pool = pools[i % pools.length];
    const kind = Math.floor(i / pools.length) % 3;
    out.push(kind === 0 ? sampleMidpriceUpdated(cluster, pool, i) : kind === 1 ? sampleSwap(cluster, pool, i) : sampleVaultBalancesChanged(cluster, pool, i));
  }
  return out;
}
