import type { Cluster, FeeSplitRecipient, HadronEvent, PoolSnapshot } from '@hadron/contracts';
import type { RawLogRecord } from '@hadron/platform/event-log/event-log.port';

/**
 * A deterministic, contract-valid stream of Hadron events for the kill/restart test and the replay
 * benchmark: pools on both clusters interleaved, ~50 % oracle updates (all three instructions),
 * ~35 % swaps (buys and sells, swaps before the first oracle update, fee splits starting mid-way,
 * zero-fee swaps), ~12 % vault balance changes (some older than what the pool already has),
 * config changes, fee split changes, and a few facts without block time. Most pools are busy
 * (an event every ~1 s of block time, as oracle updates come every ~400 ms on chain), one in ten is
 * sparse (an event every ~2 min), so rollups see both dense and nearly empty buckets and, with a
 * million events, the sparse pools span several UTC days.
 * Oracle updates mostly carry the oracle's values after them (indexer ≥ 1.1.0); some say null
 * (unknown) and some lack the fields (older decoders). A pool's PoolDiscovered is often read at a
 * later slot than the history that follows it (as a backfill publishes it), and a few config
 * snapshots come late, from an older slot.
 * With `duplicates`, about one event in 500 is followed by an exact copy of a recent event (a
 * Kafka re-append); with `poison`, about one in 50,000 more is an event no projection may apply
 * (decoderVersion POISON_DECODER): a swap with inconsistent amounts or a zero midprice.
 */
export interface GeneratorOptions {
  events: number;
  poolsPerCluster?: number;
  seed?: number;
  /** Block time of slot 0. */
  startTime?: number;
  duplicates?: boolean;
  poison?: boolean;
}

/** decoderVersion of the poison events the generator makes (they do not count in `events`). */
export const POISON_DECODER = 'gen-1-poison';

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const Q32 = 1n << 32n;

/** A small seeded PRNG (mulberry32): the same stream for the same seed, in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shuffles `items` in place (Fisher–Yates) with `random` (e.g. a mulberry32): the same seed, the same order. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** A base58 string of exactly `length` chars (first char never '1'), distinct per (label, n). */
function b58(label: string, n: number, length: number): string {
  let h = 2166136261;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619) >>> 0;
  let out = '';
  let x = n;
  for (let i = 0; i < 12; i++) {
    out = B58[x % 58] + out;
    x = Math.floor(x / 58);
  }
  while (out.length < length) {
    h = Math.imul(h ^ out.length, 16777619) >>> 0;
    out = B58[h % 58] + out;
  }
  return (out[0] === '1' ? '2' : out[0]) + out.slice(1, length);
}

/** Base58 of `n`, fixed width (leading '1's), for cheap unique signatures. */
function b58fixed(n: number, width: number): string {
  let out = '';
  let x = n;
  for (let i = 0; i < width; i++) {
    out = B58[x % 58] + out;
    x = Math.floor(x / 58);
  }
  return out;
}

interface PoolState {
  cluster: Cluster;
  pool: string;
  index: number;
  slot: number;
  seq: number;
  discovered: boolean;
  mid: bigint | null;
  spread: bigint;
  vaultX: bigint;
  vaultY: bigint;
  feePpm: number;
  decimalsX: number;
  decimalsY: number;
  split: FeeSplitRecipient[] | null;
  splitCapable: boolean;
  state: 'Initialized' | 'Paused';
  /** Largest slot step between two events of this pool (0.4 s per slot). */
  pace: number;
  addr: { mintX: string; mintY: string; vaultX: string; vaultY: string; oracle: string; feeConfig: string; authority: string; quoter: string };
}

export function* generateEvents(opts: GeneratorOptions): Generator<HadronEvent> {
  const rnd = mulberry32(opts.seed ?? 42);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const startTime = opts.startTime ?? 1_760_000_000;
  const perCluster = opts.poolsPerCluster ?? 20;
  const pools: PoolState[] = [];
  for (const cluster of ['mainnet-beta', 'devnet'] as const) {
    for (let i = 0; i < perCluster; i++) {
      const index = pools.length;
      pools.push({
        cluster,
        // The same address on both clusters for pool 0: clusters must stay apart.
        pool: b58(`pool:${i === 0 ? 'shared' : `${cluster}:${i}`}`, index === perCluster ? 0 : index, 44),
        index,
        slot: 1000 + int(0, 100),
        seq: 0,
        discovered: false,
        mid: index % 5 === 4 ? null : BigInt(int(1, 400)) * Q32 + BigInt(int(0, 2 ** 31)),
        spread: Q32 - BigInt(int(0, 2 ** 22)),
        vaultX: BigInt(int(1, 1e9)) * 1000n,
        vaultY: BigInt(int(1, 1e9)) * 1000n,
        feePpm: [0, 10, 25, 3000][index % 4],
        decimalsX: [9, 6, 8, 0][index % 4],
        decimalsY: [6, 6, 9, 2][index % 4],
        split: null,
        splitCapable: index % 2 === 1,
        state: 'Initialized',
        pace: index % 10 === 9 ? 600 : 5,
        addr: {
          mintX: b58(`mint-x:${cluster}:${index}`, 1, 44),
          mintY: b58(`mint-y:${cluster}:${index}`, 2, 44),
          vaultX: '',
          vaultY: '',
          oracle: '',
          feeConfig: '',
          authority: b58('authority', index % 3, 44),
          quoter: b58('quoter', index % 2, 44),
        },
      });
      const p = pools[pools.length - 1];
      p.addr.vaultX = b58(`vault-x:${p.pool}`, 4, 44);
      p.addr.vaultY = b58(`vault-y:${p.pool}`, 5, 44);
      p.addr.oracle = b58(`oracle:${p.pool}`, 3, 44);
      p.addr.feeConfig = b58(`fee-config:${p.pool}`, 6, 44);
    }
  }
  const mintX = (p: PoolState) => p.addr.mintX;
  const mintY = (p: PoolState) => p.addr.mintY;
  const programId = b58('program', 1, 44);
  const feeRecipient = b58('fee-recipient', 7, 44);
  const traders = Array.from({ length: 97 }, (_, i) => b58('trader', i, 44));
  const feeAtas = [b58('fee-ata', 1, 44), b58('fee-ata', 2, 44)];
  const recipients = [0, 1, 2, 10, 11].map((i) => b58('recipient', i, 44));
  const sigPrefix = { 'mainnet-beta': b58('sig:mainnet-beta', 0, 90), devnet: b58('sig:devnet', 0, 90) };
  const snapshot = (p: PoolState): PoolSnapshot => ({
    programId,
    programVersion: ((p.index % 2) + 1) as 1 | 2,
    seed: String(p.index),
    authority: p.addr.authority,
    quotingAuthority: p.addr.quoter,
    oracle: p.addr.oracle,
    tokenX: { mint: mintX(p), symbol: `X${p.index}`, name: `Token X ${p.index}`, decimals: p.decimalsX, icon: '' },
    tokenY: { mint: mintY(p), symbol: 'USDC', name: 'USD Coin', decimals: p.decimalsY, icon: 'https://example.invalid/usdc.png' },
    vaultX: p.addr.vaultX,
    vaultY: p.addr.vaultY,
    poolState: p.state,
    poolStateRaw: p.state === 'Initialized' ? 1 : 2,
    oracleMode: 0,
    spreadConfigInitialized: true,
    hasPoolFee: p.splitCapable,
    feeConfig: p.addr.feeConfig,
    feePpm: p.feePpm,
    feeRecipient,
    midpriceQ32: p.mid === null ? null : p.mid.toString(),
    spreadFactorQ32: p.spread.toString(),
  });

  /** An event every projection must refuse; it changes no pool state. */
  const poisonEvent = (q: PoolState, n: number): HadronEvent => {
    const signature = sigPrefix[q.cluster].slice(0, 64) + b58fixed(n, 8);
    const base = {
      version: 1 as const,
      cluster: q.cluster,
      pool: q.pool,
      slot: q.slot,
      blockTime: startTime + Math.floor(q.slot * 0.4),
      decoderVersion: POISON_DECODER,
    };
    const envelope = { ...base, signature, txIndex: 0, ixIndex: 9, innerIndex: null, id: `${signature}:9:poison` };
    if (n % 2 === 1) {
      // The program rejects a zero midprice.
      return {
        ...envelope,
        type: 'MidpriceUpdated',
        data: {
          instruction: 'UpdateMidprice',
          oracle: q.addr.oracle,
          quotingAuthority: q.addr.quoter,
          sequence: String(q.seq),
          midpriceQ32: '0',
          spreadFactorQ32: null,
        },
      };
    }
    // amountInToVault + feeRaw != amountIn.
    const [inputMint, outputMint] = [mintY(q), mintX(q)];
    return {
      ...envelope,
      type: 'SwapExecuted',
      data: {
        side: 'buy',
        trader: traders[0],
        inputMint,
        outputMint,
        amountIn: '1000',
        amountInToVault: '999',
        amountOut: '1',
        feeRaw: '0',
        feeMint: inputMint,
        feeRecipientAta: feeAtas[1],
        decimalsX: q.decimalsX,
        decimalsY: q.decimalsY,
        midpriceQ32: q.mid?.toString() ?? null,
        spreadFactorQ32: null,
        vaultXAfter: q.vaultX.toString(),
        vaultYAfter: q.vaultY.toString(),
        feeSplit: null,
      },
    };
  };
  const recent: HadronEvent[] = [];
  const emit = function* (e: HadronEvent): Generator<HadronEvent> {
    yield e;
    recent.push(e);
    if (recent.length > 50) recent.shift();
  };
  for (let n = 0; n < opts.events; n++) {
    if (opts.duplicates && n > 0 && n % 499 === 0) yield recent[int(0, recent.length - 1)]; // an exact copy
    if (opts.poison && n > 0 && n % 49_999 === 0) {
      const q = pools[int(0, pools.length - 1)];
      if (q.discovered) yield poisonEvent(q, n);
    }
    const p = pools[int(0, pools.length - 1)];
    p.slot += int(1, p.pace);
    const blockTime = n % 4999 === 4998 ? null : startTime + Math.floor(p.slot * 0.4);
    const signature = sigPrefix[p.cluster].slice(0, 56 + (n % 25)) + b58fixed(n, 8);
    const txIndex = n % 997 === 0 ? null : int(0, 60);
    const base = { version: 1 as const, cluster: p.cluster, pool: p.pool, slot: p.slot, blockTime, decoderVersion: 'gen-1' };
    const ix = int(0, 3);
    const inner = rnd() < 0.1 ? int(0, 2) : null;
    const ixEnvelope = {
      ...base,
      signature,
      txIndex,
      ixIndex: ix,
      innerIndex: inner,
      id: inner === null ? `${signature}:${ix}` : `${signature}:${ix}:${inner}`,
    };
    const accountEnvelope = (kind: string) => ({
      ...base,
      signature: null,
      txIndex: null,
      ixIndex: null,
      innerIndex: null,
      id: `${p.pool}:${p.cluster}:${p.slot}:${kind}`,
    });

    if (!p.discovered) {
      p.discovered = true;
      // Mostly read ahead of the history that follows (a backfill reads the pool at its target slot).
      const readAt = p.index % 3 === 0 ? p.slot : p.slot + int(50, 400);
      yield* emit({
        ...accountEnvelope('discovered'),
        slot: readAt,
        id: `${p.pool}:${p.cluster}:${readAt}:discovered`,
        type: 'PoolDiscovered',
        data: snapshot(p),
      });
      continue;
    }
    const roll = rnd();
    if (roll < 0.5) {
      const kind = int(0, 2);
      const newMid = p.mid === null || kind !== 1 ? BigInt(int(1, 400)) * Q32 + BigInt(int(0, 2 ** 31)) : null;
      const newSpread = kind !== 0 ? Q32 - BigInt(int(0, 2 ** 22)) : null;
      if (newMid !== null) p.mid = newMid;
      if (newSpread !== null) p.spread = newSpread;
      const instruction = newMid !== null && newSpread !== null ? 'UpdateMidpriceAndBaseSpread' : newMid !== null ? 'UpdateMidprice' : 'UpdateBaseSpread';
      const known = rnd();
      const after =
        known < 0.8
          ? { midpriceAfterQ32: p.mid?.toString() ?? null, spreadFactorAfterQ32: p.spread.toString() }
          : known < 0.9
            ? { midpriceAfterQ32: null, spreadFactorAfterQ32: null }
            : {};
      yield* emit({
        ...ixEnvelope,
        type: 'MidpriceUpdated',
        data: {
          instruction,
          oracle: p.addr.oracle,
          quotingAuthority: p.addr.quoter,
          sequence: String(++p.seq),
          midpriceQ32: newMid?.toString() ?? null,
          spreadFactorQ32: newSpread?.toString() ?? null,
          ...after,
        },
      });
    } else if (roll < 0.85) {
      const sell = rnd() < 0.5;
      const amountIn = BigInt(int(1, 2_000_000_000));
      const fee = (amountIn * BigInt(p.feePpm)) / 1_000_000n;
      const net = amountIn - fee;
      const mid = p.mid ?? Q32;
      const skewPpm = BigInt(int(990_000, 1_005_000));
      const amountOut = sell ? (net * mid * skewPpm) / Q32 / 1_000_000n : (((net * Q32) / mid) * skewPpm) / 1_000_000n;
      if (sell) {
        p.vaultX += net;
        p.vaultY = p.vaultY > amountOut ? p.vaultY - amountOut : 0n;
      } else {
        p.vaultY += net;
        p.vaultX = p.vaultX > amountOut ? p.vaultX - amountOut : 0n;
      }
      const [inputMint, outputMint] = sell ? [mintX(p), mintY(p)] : [mintY(p), mintX(p)];
      yield* emit({
        ...ixEnvelope,
        type: 'SwapExecuted',
        data: {
          side: sell ? 'sell' : 'buy',
          trader: traders[n % 97],
          inputMint,
          outputMint,
          amountIn: amountIn.toString(),
          amountInToVault: net.toString(),
          amountOut: amountOut.toString(),
          feeRaw: fee.toString(),
          feeMint: inputMint,
          feeRecipientAta: feeAtas[sell ? 0 : 1],
          decimalsX: p.decimalsX,
          decimalsY: p.decimalsY,
          midpriceQ32: p.mid?.toString() ?? null,
          spreadFactorQ32: p.spread.toString(),
          vaultXAfter: p.vaultX.toString(),
          vaultYAfter: p.vaultY.toString(),
          feeSplit: p.split,
        },
      });
    } else if (roll < 0.97) {
      // One in ten reports balances from an older slot (a late fact): the snapshot must ignore it.
      const stale = rnd() < 0.1;
      yield* emit({
        ...ixEnvelope,
        slot: stale ? p.slot - int(1, 50) : p.slot,
        ixIndex: null,
        innerIndex: null,
        id: `${signature}:vault`,
        type: 'VaultBalancesChanged',
        data: { vaultX: p.addr.vaultX, vaultY: p.addr.vaultY, amountX: (stale ? p.vaultX / 2n : p.vaultX).toString(), amountY: p.vaultY.toString() },
      });
    } else if (roll < 0.985) {
      p.state = p.state === 'Initialized' ? 'Paused' : 'Initialized';
      // One in five is read from an older slot and arrives late: its config must not win.
      const late = rnd() < 0.2 ? p.slot - int(1, 30) : p.slot;
      yield* emit({ ...accountEnvelope('config'), slot: late, id: `${p.pool}:${p.cluster}:${late}:config:${n}`, type: 'PoolConfigChanged', data: snapshot(p) });
    } else {
      if (p.splitCapable) {
        const a = int(1, 999_999);
        const full = rnd() < 0.8;
        p.split = [
          { recipient: recipients[p.index % 3], ppm: a },
          { recipient: recipients[3 + (p.index % 2)], ppm: full ? 1_000_000 - a : int(0, 1_000_000 - a) },
        ];
      }
      yield* emit({
        ...accountEnvelope('split'),
        type: 'FeeSplitChanged',
        data: { feeConfig: p.addr.feeConfig, feePpm: p.feePpm, recipients: p.split ?? [] },
      });
    }
  }
}

/** The same stream as log records, in chunks (JSON text, what the log stores, with its type). */
export function* generateRecords(opts: GeneratorOptions, chunk = 20_000): Generator<RawLogRecord[]> {
  let out: RawLogRecord[] = [];
  for (const e of generateEvents(opts)) {
    out.push({ id: e.id, cluster: e.cluster, key: e.pool, payload: JSON.stringify(e), type: e.type });
    if (out.length === chunk) {
      yield out;
      out = [];
    }
  }
  if (out.length) yield out;
}
