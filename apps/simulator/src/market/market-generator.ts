import {
  derivePoolAddresses,
  encodeConfigAccount,
  encodeFeeConfigAccount,
  encodeFeeSplit,
  encodeInstruction,
  encodeOracleAccount,
  FEE_CONFIG_SIZE,
  globalFeeConfigAddress,
  ORACLE_SIZE,
  poolStateName,
  type DecodedHadronInstruction,
  type HadronProgramVersion,
  type SplitWeight,
} from '@hadron/domain';
import { KeyBook } from '../ledger/keys';
import { Ledger, RENT_EXEMPT_EPOCH, type AccountState, type StoredTx } from '../ledger/ledger';
import { Rng } from '../ledger/prng';
import { executeTransaction, type ExecutedTx, type InnerInstruction, type TopLevelInstruction, type TxSpec } from '../ledger/transaction-executor';
import { associatedTokenAddress, metaplexMetadataAddress } from '../spl/addresses';
import {
  encodeLookupTable,
  encodeMetadata,
  encodeMint,
  encodeToken2022Mint,
  encodeTokenAccount,
  encodeTokenMetadataState,
  rentExempt,
  tokenAccountAmount,
  tokenAccountRent,
  tokenAccountSize,
  type TokenMetadataFields,
} from '../spl/spl-accounts';
import {
  metaplexUpdateMetadataData,
  setComputeUnitLimitData,
  setComputeUnitPriceData,
  systemCreateAccountData,
  tokenInitializeAccount3Data,
  tokenTransferData,
} from '../spl/spl-instructions';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  ASSOCIATED_TOKEN_PROGRAM,
  BPF_LOADER_2,
  BPF_UPGRADEABLE_LOADER,
  COMPUTE_BUDGET_PROGRAM,
  HADRON_PROGRAM_V1,
  HADRON_PROGRAM_V2,
  METAPLEX_PROGRAM,
  NATIVE_LOADER,
  NATIVE_MINT,
  SPL_TOKEN_PROGRAM,
  SYSTEM_PROGRAM,
  SYSVAR_CLOCK,
  SYSVAR_INSTRUCTIONS,
  SYSVAR_OWNER,
  TOKEN_2022_PROGRAM,
  ZERO_PUBKEY,
} from '../spl/well-known';
import {
  ACTIVITY_FACTOR,
  GLOBAL_FEE,
  LIFECYCLE,
  POOL_ROTATION,
  QUOTE_USD,
  QUOTES,
  SPLIT_CHANGES_AT,
  templateMint,
  TOKEN_RENAMES,
  type TokenTemplate,
} from './catalog';
import type {
  FailedTxFact,
  FeeSplitChange,
  GroundTruth,
  InstructionLocation,
  LiquidityFact,
  OracleUpdateFact,
  PoolFact,
  SwapFact,
  TokenFact,
  VaultBalanceChange,
} from './ground-truth';
import { DEPOSIT_TAG, HADRON_ERRORS, initializeData, liquidityData, setPoolStateData, updateFeeConfigData, WITHDRAW_TAG } from './hadron-extra-instructions';
import { midpriceRaw, quoteSwap, type PoolRuntime } from './pool-runtime';
import { buildSwapTransaction, type PlannedSwap, type RouterPlatformFee, type SwapRoute } from './swap-transaction';

export interface MarketOptions {
  /** Names the cluster in ground truth and seeds its PRNG streams with `seed`. */
  cluster: string;
  seed: string;
  pools: number;
  historySeconds: number;
  /** Unix ms where the history ends (live slots continue from here). */
  historyEndTimeMs: number;
  slotMs: number;
  /** Oracle updates per second on a busy pool (medium pools ¼, quiet ones ~1/16). */
  midpriceUpdatesPerSecond: number;
  /** Swaps per second on a busy pool. */
  swapsPerSecond: number;
  /** Deposits + withdrawals per second per pool. */
  liquidityEventsPerSecond: number;
  /** Fraction of slots with no block. */
  skippedSlotRate: number;
  /** Fraction of swaps sent with a min_out they cannot meet (failed tx). */
  failedSwapRate: number;
  /**
   * With ≥ 6 pools the last one is created (Initialize + first deposit) at this fraction of the
   * history instead of at genesis: swaps on a pool an indexer has not discovered yet. null = never.
   */
  latePoolAt: number | null;
  /** An extra pool (index `pools`) is created this many seconds into live mode; null = never. */
  newPoolAfterSeconds: number | null;
  /**
   * The span (from the first slot) over which the lifecycle (pause, reject swaps, close), the fee
   * split changes and the late pool are placed, as fractions of it; null = the history. Longer than
   * the history, the later ones happen in slots produced afterwards (live or `advance`), where a
   * client can observe each account state as it changes.
   */
  scheduleSeconds: number | null;
}

export const DEFAULT_MARKET_OPTIONS: Omit<MarketOptions, 'cluster' | 'seed' | 'historyEndTimeMs'> = {
  /** Every template of the catalog's rotation (POOL_ROTATION). */
  pools: 8,
  historySeconds: 1800,
  slotMs: 400,
  midpriceUpdatesPerSecond: 3,
  swapsPerSecond: 0.6,
  liquidityEventsPerSecond: 1 / 300,
  skippedSlotRate: 0.03,
  failedSwapRate: 0.04,
  latePoolAt: 0.5,
  newPoolAfterSeconds: null,
  scheduleSeconds: null,
};

const SOL = 1_000_000_000;
const I64_MAX = (1n << 63n) - 1n;
const Q32 = 2 ** 32;

/** Sizes of the Hadron accounts whose layouts we do not know (zero-filled; distinct from every known size). */
const UNKNOWN_LAYOUT_SIZES = { curveMeta: 160, curvePrefabs: 2048, curveUpdates: 512, spreadConfig: 96 };

const PROGRAMS: Record<HadronProgramVersion, string> = { v1: HADRON_PROGRAM_V1, v2: HADRON_PROGRAM_V2 };

interface Trader {
  key: string;
}

interface PlannedOracleUpdate {
  tag: 5 | 9 | 10;
  ix: DecodedHadronInstruction;
  /** What is sent: the encoded instruction, sometimes with trailing bytes. */
  data: Uint8Array;
  sequence: bigint;
  /** The oracle's values after the update (the unchanged field carried over). */
  midprice: bigint;
  spread: bigint;
  /** A lower sequence: the program rejects it. */
  stale: boolean;
}

/**
 * How often the rarer transaction shapes appear — low, deterministic, and each one true to what
 * the program (DESIGN §2 [C]) or a real client could send. The market-generator spec checks that
 * every shape is present in a small market.
 */
const SHAPE_RATES = {
  /** A sell whose is_x byte is not 1 (any non-zero sells X [C]). */
  nonCanonicalIsX: 0.08,
  /** Oracle-update data with trailing bytes (ignored by the program [C]). */
  oracleTrailingBytes: 0.04,
  /** An oracle update CPI'd by a keeper program instead of sent top level. */
  oracleViaCpi: 0.04,
  /** Per swap drawn on an active pool: instead, an oracle update and a swap in one transaction. */
  swapWithOracleUpdate: 0.06,
  /** A routed swap whose router takes a platform fee with TransferChecked after it. */
  routerPlatformFee: 0.12,
  /** A single routed swap served without stackHeight (a transaction older than the field). */
  cpiWithoutStackHeight: 0.08,
} as const;

interface ScheduledEvent {
  slot: number;
  run: (slot: number) => void;
}

/**
 * One simulated cluster: genesis accounts, then slot after slot of Hadron activity written into a
 * Ledger, with the ground truth recorded as it happens. Deterministic: the same options give the
 * same bytes (every random draw comes from streams seeded by `seed`, in a fixed order).
 */
export class SimulatedMarket {
  readonly ledger: Ledger;
  readonly keys: KeyBook;
  readonly options: MarketOptions;
  readonly routerProgram: string;
  /** A made-up program that CPIs some oracle updates. */
  readonly keeperProgram: string;
  /** Owner of the router's platform-fee token accounts. */
  private readonly routerFeeOwner: string;
  /**
   * A made-up program implementing the token-metadata interface: it owns the account a
   * Token-2022 MetadataPointer names when the metadata is not in the mint (kind 'pointer').
   */
  readonly tokenMetadataProgram: string;
  /** Pools that exist on chain (created so far). */
  readonly pools: PoolRuntime[] = [];
  /** Every pool, including those created later (by index). */
  private readonly planned: PoolRuntime[] = [];
  private readonly rng: Rng;
  /** Draws of token-metadata events (renames), apart from the market's: they shift none of its choices. */
  private readonly tokenEventRng: Rng;
  private readonly traders: Trader[] = [];
  private readonly tokens = new Map<string, TokenFact>();
  /** How each token was made (by mint): its template and the authority that may update its metadata. */
  private readonly tokenOrigins = new Map<string, { template: TokenTemplate; updateAuthority: string }>();
  private readonly schedule: ScheduledEvent[] = [];
  private readonly historyEndSlot: number;
  private readonly truth: Omit<GroundTruth, 'head_slot' | 'history_end_slot' | 'tokens' | 'pools'> & { pools: PoolFact[] };

  constructor(options: MarketOptions) {
    this.options = options;
    const root = new Rng(`${options.seed}/${options.cluster}`);
    this.rng = root.fork('market');
    this.tokenEventRng = root.fork('token-events');
    this.keys = new KeyBook(`${options.seed}/${options.cluster}`);
    const historySlots = Math.max(1, Math.round((options.historySeconds * 1000) / options.slotMs));
    // A realistic mainnet-sized slot number, different per seed.
    const firstSlot = 300_000_000 + (root.fork('slot').nextU32() % 20_000_000);
    const clock = { firstSlot, firstSlotTimeMs: options.historyEndTimeMs - historySlots * options.slotMs, slotMs: options.slotMs };
    this.ledger = new Ledger(clock, root.fork('ledger'), this.keys.key('genesis-hash'), firstSlot - 4_000_000);
    this.historyEndSlot = firstSlot + historySlots - 1;
    this.routerProgram = this.keys.key('router-program');
    this.keeperProgram = this.keys.key('keeper-program');
    this.routerFeeOwner = this.keys.key('router-fee-owner');
    this.tokenMetadataProgram = this.keys.key('token-metadata-interface-program');
    this.truth = {
      cluster: options.cluster,
      seed: options.seed,
      first_slot: firstSlot,
      programs: { v1: HADRON_PROGRAM_V1, v2: HADRON_PROGRAM_V2, router: this.routerProgram, keeper: this.keeperProgram },
      global_fee_configs: [],
      pools: [],
      swaps: [],
      oracle_updates: [],
      liquidity: [],
      vault_balance_changes: [],
      fee_split_changes: [],
      failed_transactions: [],
    };
    this.genesis();
    this.planLifecycle();
  }

  /** Generates the whole history; afterwards everything in it is final. */
  generateHistory(): void {
    while (this.ledger.head < this.historyEndSlot) this.produceSlot();
    this.ledger.settle();
  }

  get lastHistorySlot(): number {
    return this.historyEndSlot;
  }

  /** Produces the next slot (history or live). */
  produceSlot(): void {
    const slot = this.ledger.head + 1;
    const skipped = this.rng.chance(this.options.skippedSlotRate);
    const block = this.ledger.openSlot(slot, skipped);
    if (!block) return;
    while (this.schedule.length > 0 && this.schedule[0].slot <= slot) this.schedule.shift()!.run(slot);

    type Action = () => void;
    const actions: Action[] = [];
    const seconds = this.options.slotMs / 1000;
    for (const pool of this.pools) {
      const state = pool.config.state;
      if (state === 4) continue;
      for (let n = this.rng.poisson(pool.midpriceRate * seconds); n > 0; n--) actions.push(() => this.oracleUpdate(pool, slot));
      const swaps = this.rng.poisson(pool.swapRate * seconds);
      for (let n = 0; n < swaps; n++) {
        if (state === 1 && this.rng.chance(SHAPE_RATES.swapWithOracleUpdate)) actions.push(() => this.swapWithOracleUpdate(pool, slot));
        else if (state === 1) actions.push(() => this.swap(pool, slot));
        else if (this.rng.chance(0.5)) actions.push(() => this.swap(pool, slot)); // a client that did not notice: fails
      }
      if (state === 1 && this.rng.chance(pool.liquidityRate * seconds))
        actions.push(() => this.liquidity(pool, slot, this.rng.chance(0.55) ? 'deposit' : 'withdraw'));
    }
    for (const action of this.rng.shuffle(actions)) action();
  }

  groundTruth(): GroundTruth {
    const t = this.truth;
    return {
      cluster: t.cluster,
      seed: t.seed,
      first_slot: t.first_slot,
      history_end_slot: this.historyEndSlot,
      head_slot: this.ledger.head,
      programs: t.programs,
      global_fee_configs: t.global_fee_configs,
      tokens: [...this.tokens.values()].map((t) => ({ ...t, renames: t.renames.map((r) => ({ ...r })) })),
      pools: t.pools.map((p) => ({ ...p, state_history: [...p.state_history] })),
      swaps: [...t.swaps],
      oracle_updates: [...t.oracle_updates],
      liquidity: [...t.liquidity],
      vault_balance_changes: [...t.vault_balance_changes],
      fee_split_changes: [...t.fee_split_changes],
      failed_transactions: [...t.failed_transactions],
    };
  }

  // ---- genesis ---------------------------------------------------------------------------------

  private genesis(): void {
    const slot = this.ledger.clock.firstSlot - 1;
    const put = (address: string, state: Omit<AccountState, 'rentEpoch' | 'executable'> & { executable?: boolean }) =>
      this.ledger.setAccount(address, { executable: false, rentEpoch: RENT_EXEMPT_EPOCH, ...state }, slot);
    const program = (address: string, owner: string, lamports: number) =>
      put(address, { owner, lamports, data: new Uint8Array(owner === BPF_UPGRADEABLE_LOADER ? 36 : 0), executable: true });

    for (const id of [HADRON_PROGRAM_V1, HADRON_PROGRAM_V2, this.routerProgram, this.keeperProgram, this.tokenMetadataProgram])
      program(id, BPF_UPGRADEABLE_LOADER, 1_141_440);
    program(SPL_TOKEN_PROGRAM, BPF_LOADER_2, 5_299_606_121);
    program(TOKEN_2022_PROGRAM, BPF_UPGRADEABLE_LOADER, 1_141_440);
    program(ASSOCIATED_TOKEN_PROGRAM, BPF_LOADER_2, 731_913_600);
    program(METAPLEX_PROGRAM, BPF_UPGRADEABLE_LOADER, 1_141_440);
    for (const id of [SYSTEM_PROGRAM, COMPUTE_BUDGET_PROGRAM, ADDRESS_LOOKUP_TABLE_PROGRAM]) program(id, NATIVE_LOADER, 1);
    put(SYSVAR_CLOCK, { owner: SYSVAR_OWNER, lamports: 1_169_280, data: new Uint8Array(40) });

    // Global fee configs of both programs, on the real PDAs and recipients.
    for (const version of ['v1', 'v2'] as const) {
      const { address, bump } = globalFeeConfigAddress(PROGRAMS[version]);
      const fee = {
        version,
        size: FEE_CONFIG_SIZE[version],
        initialized: 1,
        fee_ppm: GLOBAL_FEE[version].ppm,
        bump,
        admin: this.keys.key(`fee-admin/${version}`),
        fee_recipient: GLOBAL_FEE[version].recipient,
      };
      put(address, { owner: PROGRAMS[version], lamports: rentExempt(fee.size), data: encodeFeeConfigAccount(fee) });
      this.truth.global_fee_configs.push({ program_version: version, address, fee_ppm: fee.fee_ppm, fee_recipient: fee.fee_recipient });
    }

    // Traders: funded wallets; token accounts are created per pool below.
    const traderCount = 10 + 2 * this.options.pools;
    for (let i = 0; i < traderCount; i++) {
      const key = this.keys.key(`trader/${i}`);
      this.traders.push({ key });
      put(key, { owner: SYSTEM_PROGRAM, lamports: 25 * SOL + this.rng.int(0, SOL), data: new Uint8Array(0) });
    }

    const late = this.options.latePoolAt !== null && this.options.pools >= 6 ? this.options.pools - 1 : null;
    for (let i = 0; i < this.options.pools; i++) {
      const pool = this.createPool(i, slot, put, i === late);
      if (i === late) this.schedule.push({ slot: this.slotAt(this.options.latePoolAt!), run: (s) => this.initializePool(pool, s) });
    }
    if (this.options.newPoolAfterSeconds !== null) {
      const at = this.historyEndSlot + Math.max(1, Math.ceil((this.options.newPoolAfterSeconds * 1000) / this.options.slotMs));
      const index = this.options.pools;
      this.schedule.push({
        slot: at,
        run: (s) =>
          this.initializePool(
            this.createPool(
              index,
              s,
              (address, state) => this.ledger.setAccount(address, { executable: false, rentEpoch: RENT_EXEMPT_EPOCH, ...state }, s),
              true,
            ),
            s,
          ),
      });
    }
  }

  /**
   * The mint of `template` and wherever its name lives (see MetadataKind), written at `slot`,
   * built with the field's libraries; and its ground truth, from what was written.
   */
  private token(template: TokenTemplate, slot: number): TokenFact {
    const mint = templateMint(template, this.keys);
    const existing = this.tokens.get(mint);
    if (existing) return existing;
    const kind = template.metadata;
    const program = template.tokenProgram;
    if ((kind === 'token-2022' || kind === 'pointer') && program !== TOKEN_2022_PROGRAM)
      throw new Error(`token ${template.symbol}: metadata '${kind}' needs a Token-2022 mint`);
    const put = (address: string, owner: string, data: Uint8Array) =>
      this.ledger.setAccount(address, { owner, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH }, slot);
    const authority = mint === NATIVE_MINT ? null : this.keys.key(`mint-authority/${template.symbol}`);
    const updateAuthority = authority ?? this.keys.key('metadata-authority');
    const base = { mintAuthority: authority, supply: 10n ** BigInt(template.decimals + 12), decimals: template.decimals, freezeAuthority: null };
    const uri = kind === 'none' ? null : `https://tokens.example/${template.symbol.toLowerCase()}.json`;
    const fields: TokenMetadataFields & { updateAuthority: string } = {
      updateAuthority,
      mint,
      name: template.name,
      symbol: template.symbol,
      uri: uri ?? '',
      additionalMetadata: [],
    };

    let metadata: string | null = null;
    switch (kind) {
      case 'metaplex':
      case 'metaplex-puffed':
        put(mint, program, encodeMint(base));
        metadata = metaplexMetadataAddress(mint);
        put(metadata, METAPLEX_PROGRAM, encodeMetadata({ ...fields, puffed: kind === 'metaplex-puffed' }));
        break;
      case 'token-2022':
        // MetadataPointer to the mint itself, the TokenMetadata extension in the mint.
        metadata = mint;
        put(
          mint,
          program,
          encodeToken2022Mint(base, {
            metadataPointer: { authority: updateAuthority, metadataAddress: mint },
            tokenMetadata: { ...fields, additionalMetadata: [['website', `https://tokens.example/${template.symbol.toLowerCase()}`]] },
          }),
        );
        break;
      case 'pointer':
        // MetadataPointer to an account of a token-metadata program holding the interface state.
        metadata = this.keys.key(`token-metadata/${template.symbol}`);
        put(mint, program, encodeToken2022Mint(base, { metadataPointer: { authority: updateAuthority, metadataAddress: metadata } }));
        put(metadata, this.tokenMetadataProgram, encodeTokenMetadataState(fields));
        break;
      case 'none':
        put(mint, program, encodeMint(base));
        break;
    }
    const source = kind === 'metaplex-puffed' ? 'metaplex' : kind;
    const named = kind !== 'none';
    const fact: TokenFact = {
      mint,
      symbol: named ? template.symbol : '',
      name: named ? template.name : '',
      decimals: template.decimals,
      token_program: program,
      metadata,
      metadata_source: source,
      uri,
      renames: [],
    };
    this.tokens.set(mint, fact);
    this.tokenOrigins.set(mint, { template, updateAuthority });
    return fact;
  }

  /** A token account with `amount`, created at genesis (WSOL accounts hold rent + amount as lamports). */
  private tokenAccount(owner: string, mint: string, tokenProgram: string, amount: bigint, slot: number): string {
    const address = this.ata(owner, mint, tokenProgram);
    const native = mint === NATIVE_MINT;
    const rent = tokenAccountRent(tokenProgram);
    this.ledger.setAccount(
      address,
      {
        owner: tokenProgram,
        lamports: rent + (native ? Number(amount) : 0),
        data: encodeTokenAccount({ mint, owner, amount, nativeReserve: native ? rent : null, tokenProgram }),
        executable: false,
        rentEpoch: RENT_EXEMPT_EPOCH,
      },
      slot,
    );
    return address;
  }

  /**
   * Plans pool `index` and writes what exists independently of it (wallets, tokens, token accounts,
   * its lookup table) at `slot`. Unless `deferred`, the pool's own accounts and funded vaults are
   * written too (a pool that exists at genesis); otherwise initializePool creates them by a tx.
   */
  private createPool(
    index: number,
    slot: number,
    put: (address: string, state: Omit<AccountState, 'rentEpoch' | 'executable'>) => void,
    deferred: boolean,
  ): PoolRuntime {
    const template = POOL_ROTATION[index % POOL_ROTATION.length];
    const version = template.program;
    const programId = PROGRAMS[version];
    const base = this.token(template.base, slot);
    const quote = this.token(QUOTES[template.quote], slot);
    const seed = index < POOL_ROTATION.length ? BigInt(this.rng.int(0, 999_999)) : this.rng.bigBelow(1n << 64n);
    const addresses = derivePoolAddresses(programId, seed, base.mint, quote.mint, base.token_program, quote.token_program);
    // The vaults are the config's associated token accounts: checked against spl-token's own
    // derivation, so the simulator never takes @hadron/domain's ATA derivation on trust.
    for (const [vault, token] of [
      [addresses.vault_x.address, base],
      [addresses.vault_y.address, quote],
    ] as const) {
      const ata = this.ata(addresses.config.address, token.mint, token.token_program);
      if (vault !== ata)
        throw new Error(`pool ${index}: @hadron/domain derives vault ${vault} for mint ${token.mint}; spl-token's ATA of the config is ${ata}`);
    }
    const authority = this.keys.key(`pool-authority/${index}`);
    const quotingAuthority = this.keys.key(`quoting-authority/${index}`);
    for (const wallet of [authority, quotingAuthority]) put(wallet, { owner: SYSTEM_PROGRAM, lamports: 500 * SOL, data: new Uint8Array(0) });

    // Oracle: start from the template price, a spread of 0–25 bps.
    const price = template.base.price!;
    const midpriceQ32 = BigInt(Math.round(price * 10 ** (quote.decimals - base.decimals) * Q32));
    const spreadFactorQ32 = spreadFactor(this.rng.pick([0, 3, 5, 7, 10, 25]));
    const oracle = { sequence: BigInt(this.rng.int(1, 5_000_000)), midpriceQ32, spreadFactorQ32, lastUpdateSlot: BigInt(slot) };

    // Fee config in use.
    const isPoolFee = template.fee !== 'global';
    const feeVersion: HadronProgramVersion = template.fee === 'pool-zero' ? 'v1' : version;
    const feeAddress = isPoolFee ? addresses.pool_fee_config : globalFeeConfigAddress(programId);
    const recipient = isPoolFee ? this.keys.key(`pool-fee-recipient/${index}`) : GLOBAL_FEE[version].recipient;
    const fee: PoolRuntime['fee'] = {
      address: feeAddress.address,
      isPoolFee,
      version: feeVersion,
      bump: feeAddress.bump,
      admin: isPoolFee ? this.keys.key(`pool-fee-admin/${index}`) : this.keys.key(`fee-admin/${version}`),
      ppm: template.fee === 'global' ? GLOBAL_FEE[version].ppm : template.fee === 'pool-zero' ? 0 : this.rng.pick([5, 25, 100]),
      recipient,
      split: template.fee === 'pool-split' ? this.randomSplit(index, 0) : [],
      atas: {},
    };
    for (const t of [base, quote]) fee.atas[t.mint] = this.ata(recipient, t.mint, t.token_program);
    if (!this.ledger.getAccount(fee.admin)) put(fee.admin, { owner: SYSTEM_PROGRAM, lamports: 10 * SOL, data: new Uint8Array(0) });

    const config = {
      version,
      size: version === 'v1' ? 248 : 724,
      state: 1,
      seed: seed.toString(),
      authority,
      mint_x: base.mint,
      mint_y: quote.mint,
      bump: addresses.config.bump,
      curve_meta: addresses.curve_meta.address,
      spread_config_initialized: template.spreadConfig ? 1 : 0,
      delta_staleness: 10,
      oracle_mode: 0,
      has_pool_fee: isPoolFee ? 1 : 0,
      padding_hex: '0000',
      pending_authority: ZERO_PUBKEY,
      nomination_expiry: '0',
      token_program_x: base.token_program,
      token_program_y: quote.token_program,
    };

    const lookupTable = this.keys.key(`lookup-table/${index}`);
    const quoteUsd = QUOTE_USD[template.quote];
    const swapUsd = template.activity === 'busy' ? { min: 1, max: 25_000 } : { min: 0.5, max: 4_000 };
    const pool: PoolRuntime = {
      index,
      template,
      programId,
      version,
      seed,
      addresses,
      config,
      authority,
      quotingAuthority,
      mintX: base.mint,
      mintY: quote.mint,
      decimalsX: base.decimals,
      decimalsY: quote.decimals,
      tokenProgramX: base.token_program,
      tokenProgramY: quote.token_program,
      authorityAtaX: '',
      authorityAtaY: '',
      initialVaults: { x: 0n, y: 0n },
      oracle,
      fee,
      lookupTable,
      midpriceRate: this.options.midpriceUpdatesPerSecond * ACTIVITY_FACTOR[template.activity],
      swapRate: this.options.swapsPerSecond * ACTIVITY_FACTOR[template.activity],
      liquidityRate: this.options.liquidityEventsPerSecond,
      swapValue: { min: swapUsd.min / quoteUsd, max: swapUsd.max / quoteUsd },
      fact: {
        config: addresses.config.address,
        program: programId,
        program_version: version,
        seed: seed.toString(),
        authority,
        quoting_authority: quotingAuthority,
        mint_x: base.mint,
        mint_y: quote.mint,
        symbol_x: base.symbol,
        symbol_y: quote.symbol,
        decimals_x: base.decimals,
        decimals_y: quote.decimals,
        token_program_x: base.token_program,
        token_program_y: quote.token_program,
        vault_x: addresses.vault_x.address,
        vault_y: addresses.vault_y.address,
        oracle: addresses.midprice_oracle.address,
        curve_meta: addresses.curve_meta.address,
        curve_prefabs: addresses.curve_prefabs.address,
        curve_updates: addresses.curve_updates.address,
        spread_config: template.spreadConfig ? addresses.spread_config.address : null,
        has_pool_fee: config.has_pool_fee,
        fee_config: feeAddress.address,
        fee_recipient: recipient,
        lookup_table: lookupTable,
        activity: template.activity,
        created_slot: slot,
        created_signature: null,
        initial_oracle: {
          sequence: oracle.sequence.toString(),
          midprice_q32: oracle.midpriceQ32.toString(),
          spread_factor_q32: oracle.spreadFactorQ32.toString(),
          last_update_slot: oracle.lastUpdateSlot.toString(),
        },
        state_history: [{ slot, block_time: this.ledger.blockTimeOf(slot), signature: null, state: 1, state_name: 'Initialized' }],
      },
    };

    // Vaults and the token accounts swaps and deposits use, funded in quote value.
    const vaultValue = (template.activity === 'busy' ? 2_000_000 : template.activity === 'medium' ? 400_000 : 150_000) / quoteUsd;
    const traderValue = 250_000 / quoteUsd;
    const atomsOf = (value: number, isBase: boolean) =>
      BigInt(Math.floor(isBase ? (value * 10 ** quote.decimals) / midpriceRaw(pool) : value * 10 ** quote.decimals));
    pool.initialVaults = { x: atomsOf(vaultValue, true), y: atomsOf(vaultValue, false) };
    if (!deferred) {
      for (const [address, state] of this.poolOwnedAccounts(pool)) put(address, state);
      this.tokenAccount(addresses.config.address, base.mint, base.token_program, pool.initialVaults.x, slot);
      this.tokenAccount(addresses.config.address, quote.mint, quote.token_program, pool.initialVaults.y, slot);
      this.poolCreated(pool, slot, null);
    }
    pool.authorityAtaX = this.ensureFunded(authority, base, atomsOf(20 * vaultValue, true), slot);
    pool.authorityAtaY = this.ensureFunded(authority, quote, atomsOf(20 * vaultValue, false), slot);
    for (const t of [base, quote]) {
      if (!this.ledger.getAccount(fee.atas[t.mint])) this.tokenAccount(recipient, t.mint, t.token_program, 0n, slot);
      this.ensureFunded(this.routerFeeOwner, t, 0n, slot); // the router's platform-fee account of each mint
    }
    // Most traders hold both tokens; the rest get their token account created by their first swap.
    for (const [i, trader] of this.traders.entries()) {
      if ((i + index) % 4 !== 0) this.ensureFunded(trader.key, base, atomsOf(traderValue, true), slot);
      this.ensureFunded(trader.key, quote, atomsOf(traderValue, false), slot);
    }

    // The pool's address lookup table (used by v0 transactions).
    const tableAddresses = [
      ...new Set([
        pool.tokenProgramX,
        pool.tokenProgramY,
        addresses.config.address,
        addresses.midprice_oracle.address,
        addresses.curve_meta.address,
        addresses.curve_prefabs.address,
        addresses.curve_updates.address,
        addresses.vault_x.address,
        addresses.vault_y.address,
        fee.address,
        fee.atas[base.mint],
        fee.atas[quote.mint],
        SYSVAR_CLOCK,
        ...(template.spreadConfig ? [addresses.spread_config.address, SYSVAR_INSTRUCTIONS] : []),
        base.mint,
        quote.mint,
        SYSTEM_PROGRAM,
        ASSOCIATED_TOKEN_PROGRAM,
        programId,
      ]),
    ];
    const tableData = encodeLookupTable({ authority: this.keys.key('lookup-table-authority'), lastExtendedSlot: slot - 1000, addresses: tableAddresses });
    put(lookupTable, { owner: ADDRESS_LOOKUP_TABLE_PROGRAM, lamports: rentExempt(tableData.length), data: tableData });
    this.lookupTables.set(lookupTable, tableAddresses);
    this.planned[index] = pool;
    return pool;
  }

  /** Config, oracle, curve accounts, spread config and a per-pool fee config, as first written. */
  private poolOwnedAccounts(pool: PoolRuntime): [string, AccountState][] {
    const a = pool.addresses;
    const zeroed = (size: number): AccountState => ({
      owner: pool.programId,
      lamports: rentExempt(size),
      data: new Uint8Array(size),
      executable: false,
      rentEpoch: RENT_EXEMPT_EPOCH,
    });
    const out: [string, AccountState][] = [
      [a.config.address, this.configState(pool)],
      [a.midprice_oracle.address, this.oracleState(pool)],
      [a.curve_meta.address, zeroed(UNKNOWN_LAYOUT_SIZES.curveMeta)],
      [a.curve_prefabs.address, zeroed(UNKNOWN_LAYOUT_SIZES.curvePrefabs)],
      [a.curve_updates.address, zeroed(UNKNOWN_LAYOUT_SIZES.curveUpdates)],
    ];
    if (pool.template.spreadConfig) out.push([a.spread_config.address, zeroed(UNKNOWN_LAYOUT_SIZES.spreadConfig)]);
    if (pool.fee.isPoolFee) out.push([pool.fee.address, this.feeConfigState(pool)]);
    return out;
  }

  /** The pool exists from `slot` on: it trades, and the ground truth lists it. */
  private poolCreated(pool: PoolRuntime, slot: number, signature: string | null): void {
    const blockTime = this.ledger.blockTimeOf(slot);
    pool.fact.created_slot = slot;
    pool.fact.created_signature = signature;
    pool.fact.state_history = [{ slot, block_time: blockTime, signature, state: 1, state_name: 'Initialized' }];
    if (pool.fee.isPoolFee) {
      this.truth.fee_split_changes.push({
        pool_config: pool.fact.config,
        fee_config: pool.fee.address,
        slot,
        block_time: blockTime,
        signature,
        fee_ppm: pool.fee.ppm,
        recipients: pool.fee.split.map((w) => ({ ...w })),
      });
    }
    this.pools.push(pool);
    this.truth.pools.push(pool.fact);
  }

  /**
   * Creates a planned pool by transaction: Initialize (tag 0) with the account creations it CPIs,
   * then a first deposit. [A] The Initialize account list is not confirmed; the indexer discovers
   * pools from their config accounts, not from this instruction.
   */
  private initializePool(pool: PoolRuntime, slot: number): void {
    pool.oracle = { ...pool.oracle, lastUpdateSlot: BigInt(slot) };
    pool.fact.initial_oracle = { ...pool.fact.initial_oracle, last_update_slot: String(slot) };
    const a = pool.addresses;
    const owned = this.poolOwnedAccounts(pool);
    const inner: InnerInstruction[] = owned.map(([address, state]) => ({
      programId: SYSTEM_PROGRAM,
      accounts: [signer(pool.authority), signer(address)],
      data: systemCreateAccountData(state.lamports, state.data.length, pool.programId),
      stackHeight: 2,
    }));
    for (const [vault, mint, program] of [
      [a.vault_x.address, pool.mintX, pool.tokenProgramX],
      [a.vault_y.address, pool.mintY, pool.tokenProgramY],
    ] as const) {
      inner.push({
        programId: SYSTEM_PROGRAM,
        accounts: [signer(pool.authority), signer(vault)],
        data: systemCreateAccountData(tokenAccountRent(program), tokenAccountSize(program), program),
        stackHeight: 2,
      });
      inner.push({ programId: program, accounts: [writable(vault), readonly(mint)], data: tokenInitializeAccount3Data(a.config.address), stackHeight: 2 });
    }
    const ix: TopLevelInstruction = {
      programId: pool.programId,
      accounts: [
        signer(pool.authority),
        ...owned.map(([address]) => writable(address)),
        writable(a.vault_x.address),
        writable(a.vault_y.address),
        readonly(pool.mintX),
        readonly(pool.mintY),
        readonly(pool.tokenProgramX),
        readonly(pool.tokenProgramY),
        readonly(SYSTEM_PROGRAM),
      ],
      data: initializeData({
        seed: pool.seed,
        mintX: pool.mintX,
        mintY: pool.mintY,
        authority: pool.authority,
        initialMidpriceQ32: pool.oracle.midpriceQ32,
        oracleMode: pool.config.oracle_mode,
        maxPrefabSlots: 4,
        maxCurvePoints: 16,
      }),
      units: 60_000,
      inner,
    };
    const executed = this.run(
      slot,
      { version: 'legacy', feePayer: pool.authority, instructions: [ix], writes: owned.map(([address, state]) => ({ address, state })) },
      400_000,
    );
    this.poolCreated(pool, slot, executed.stored.signature);
    // The vaults now exist, empty: listed in postTokenBalances at 0, absent before (= 0), so no
    // vault balance changed and there is no VaultBalanceChange (the decoder's rule as well).
    this.liquidity(pool, slot, 'deposit', { x: pool.initialVaults.x, y: pool.initialVaults.y });
  }

  readonly lookupTables = new Map<string, string[]>();

  /** Associated token address, by spl-token (memoised in spl/addresses.ts). */
  private ata(owner: string, mint: string, tokenProgram: string): string {
    return associatedTokenAddress(owner, mint, tokenProgram);
  }

  private ensureFunded(owner: string, token: TokenFact, amount: bigint, slot: number): string {
    const address = this.ata(owner, token.mint, token.token_program);
    const existing = this.ledger.getAccount(address);
    if (existing) return address;
    return this.tokenAccount(owner, token.mint, token.token_program, amount, slot);
  }

  private randomSplit(poolIndex: number, generation: number): SplitWeight[] {
    const count = this.rng.int(2, 4);
    const weights: number[] = [];
    let left = 1_000_000;
    for (let i = 0; i < count - 1; i++) {
      const w = this.rng.int(1, Math.floor(left / 2)) * 1;
      weights.push(w);
      left -= w;
    }
    weights.push(left);
    return weights.map((ppm, i) => ({ recipient: this.keys.key(`split-recipient/${poolIndex}/${generation}/${i}`), ppm }));
  }

  // ---- account writers -------------------------------------------------------------------------

  private configState(pool: PoolRuntime): AccountState {
    const data =
      pool.version === 'v2'
        ? encodeConfigAccount(pool.config, { u64_at_422: '16', curve_prefabs_at_430: pool.addresses.curve_prefabs.address })
        : encodeConfigAccount(pool.config);
    return { owner: pool.programId, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH };
  }

  private oracleState(pool: PoolRuntime): AccountState {
    const data = encodeOracleAccount({
      version: pool.version,
      size: ORACLE_SIZE[pool.version],
      quoting_authority: pool.quotingAuthority,
      sequence: pool.oracle.sequence.toString(),
      midprice_q32: pool.oracle.midpriceQ32.toString(),
      spread_factor_q32: pool.oracle.spreadFactorQ32.toString(),
      last_update_slot: pool.oracle.lastUpdateSlot.toString(),
    });
    return { owner: pool.programId, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH };
  }

  private feeConfigState(pool: PoolRuntime): AccountState {
    const f = pool.fee;
    const account = {
      version: f.version,
      size: FEE_CONFIG_SIZE[f.version],
      initialized: 1,
      fee_ppm: f.ppm,
      bump: f.bump,
      admin: f.admin,
      fee_recipient: f.recipient,
    };
    const data = f.version === 'v2' ? encodeFeeSplit(account, f.split) : encodeFeeConfigAccount(account);
    return { owner: pool.programId, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH };
  }

  // ---- scheduled events ------------------------------------------------------------------------

  private slotAt(fraction: number): number {
    const { firstSlot, slotMs } = this.ledger.clock;
    const span =
      this.options.scheduleSeconds === null ? this.historyEndSlot - firstSlot + 1 : Math.max(1, Math.round((this.options.scheduleSeconds * 1000) / slotMs));
    return firstSlot + Math.floor(fraction * span);
  }

  private planLifecycle(): void {
    const n = this.options.pools;
    if (n >= 3) {
      for (const event of LIFECYCLE) {
        const pool = this.planned[event.pool % n === 0 ? 1 : event.pool % n];
        if (event.state === 4) {
          this.schedule.push({
            slot: this.slotAt(event.at),
            run: (slot) => {
              this.withdrawAll(pool, slot);
              this.setPoolState(pool, 4, slot);
            },
          });
        } else {
          this.schedule.push({ slot: this.slotAt(event.at), run: (slot) => this.setPoolState(pool, event.state, slot) });
          if (event.until !== null) this.schedule.push({ slot: this.slotAt(event.until), run: (slot) => this.setPoolState(pool, 1, slot) });
        }
      }
    }
    for (const pool of this.planned) {
      if (pool.template.fee !== 'pool-split') continue;
      const createdAt = this.pools.includes(pool) ? 0 : (this.options.latePoolAt ?? 1);
      SPLIT_CHANGES_AT.forEach((at, generation) => {
        if (at > createdAt) this.schedule.push({ slot: this.slotAt(at) + pool.index, run: (slot) => this.changeFeeSplit(pool, generation + 1, slot) });
      });
    }
    for (const rename of TOKEN_RENAMES) {
      const mint = [...this.tokenOrigins].find(([, origin]) => origin.template.symbol === rename.token)?.[0];
      if (mint === undefined) continue; // not in this market (fewer pools)
      const { template, updateAuthority } = this.tokenOrigins.get(mint)!;
      if (template.metadata !== 'metaplex' && template.metadata !== 'metaplex-puffed')
        throw new Error(`TOKEN_RENAMES: ${rename.token} has no Metaplex metadata to rewrite`);
      // The update authority signs and pays for the rename.
      if (!this.ledger.getAccount(updateAuthority)) {
        this.ledger.setAccount(
          updateAuthority,
          { owner: SYSTEM_PROGRAM, lamports: 5 * SOL, data: new Uint8Array(0), executable: false, rentEpoch: RENT_EXEMPT_EPOCH },
          this.ledger.clock.firstSlot - 1,
        );
      }
      this.schedule.push({ slot: this.slotAt(rename.at), run: (slot) => this.renameToken(mint, rename, slot) });
    }
    this.schedule.sort((a, b) => a.slot - b.slot);
  }

  /**
   * The update authority rewrites a token's Metaplex metadata (UpdateMetadataAccountV2): a new name
   * and symbol on chain from `slot` on, in the ground truth's token (and pool) symbols and renames.
   */
  private renameToken(mint: string, rename: { symbol: string; name: string }, slot: number): void {
    const token = this.tokens.get(mint)!;
    const { template, updateAuthority } = this.tokenOrigins.get(mint)!;
    const metadata = token.metadata!;
    const uri = token.uri ?? '';
    const data = encodeMetadata({ updateAuthority, mint, name: rename.name, symbol: rename.symbol, uri, puffed: template.metadata === 'metaplex-puffed' });
    const executed = this.run(
      slot,
      {
        version: 'legacy',
        feePayer: updateAuthority,
        instructions: [
          {
            programId: METAPLEX_PROGRAM,
            accounts: [writable(metadata), signer(updateAuthority)],
            data: metaplexUpdateMetadataData({ name: rename.name, symbol: rename.symbol, uri }),
            units: 11_000,
            logs: ['Instruction: Update Metadata Accounts v2'],
          },
        ],
        writes: [
          { address: metadata, state: { owner: METAPLEX_PROGRAM, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH } },
        ],
      },
      30_000,
      this.tokenEventRng,
    );
    token.renames.push({ slot: executed.stored.slot, symbol: rename.symbol, name: rename.name, before: { symbol: token.symbol, name: token.name } });
    token.symbol = rename.symbol;
    token.name = rename.name;
    for (const pool of this.planned) {
      if (pool.mintX === mint) pool.fact.symbol_x = rename.symbol;
      if (pool.mintY === mint) pool.fact.symbol_y = rename.symbol;
    }
  }

  // ---- transactions ----------------------------------------------------------------------------

  /** Compute-budget prefix: 0, 1 or 2 instructions, so Hadron instruction indexes vary. */
  private computeBudget(limit: number, rng: Rng): { instructions: TopLevelInstruction[]; priorityFeeLamports: number } {
    const shape = rng.weighted([
      ['both', 0.7],
      ['price', 0.15],
      ['none', 0.15],
    ] as const);
    if (shape === 'none') return { instructions: [], priorityFeeLamports: 0 };
    const microLamports = BigInt(rng.int(1, 200_000));
    const priorityFeeLamports = Number((BigInt(limit) * microLamports + 999_999n) / 1_000_000n);
    const price: TopLevelInstruction = { programId: COMPUTE_BUDGET_PROGRAM, accounts: [], data: setComputeUnitPriceData(microLamports) };
    if (shape === 'price') return { instructions: [price], priorityFeeLamports };
    return { instructions: [{ programId: COMPUTE_BUDGET_PROGRAM, accounts: [], data: setComputeUnitLimitData(limit) }, price], priorityFeeLamports };
  }

  /** Runs `spec` behind a compute-budget prefix; `prefix` is how many instructions that added. */
  private run(slot: number, spec: Omit<TxSpec, 'computeUnitLimit' | 'priorityFeeLamports'>, limit = 200_000, rng = this.rng): ExecutedTx & { prefix: number } {
    const budget = this.computeBudget(limit, rng);
    const withBudget: TxSpec = {
      ...spec,
      instructions: [...budget.instructions, ...spec.instructions],
      computeUnitLimit: budget.instructions.length === 2 ? limit : 200_000 * Math.max(1, spec.instructions.length),
      priorityFeeLamports: budget.priorityFeeLamports,
      failure: spec.failure ? { ...spec.failure, instructionIndex: spec.failure.instructionIndex + budget.instructions.length } : undefined,
    };
    return { ...executeTransaction(this.ledger, slot, withBudget), prefix: budget.instructions.length };
  }

  /** The next oracle update of a pool: its instruction, and the oracle it leaves (unless stale). */
  private planOracleUpdate(pool: PoolRuntime, stale: boolean): PlannedOracleUpdate {
    const tag = this.rng.weighted([
      [5, 0.7],
      [10, 0.25],
      [9, 0.05],
    ] as const);
    const o = pool.oracle;
    const step = this.rng.weighted([
      [1n, 0.93],
      [0n, 0.02],
      [BigInt(this.rng.int(2, 9)), 0.05],
    ] as const);
    const sequence = stale ? o.sequence - 1n : o.sequence + step;
    // A random walk in ppm steps, in integers so every platform draws the same prices.
    const drift = BigInt(this.rng.int(-350, 350));
    const midprice = tag === 9 ? o.midpriceQ32 : bigMax(1n, (o.midpriceQ32 * (1_000_000n + drift)) / 1_000_000n);
    const spread = tag === 5 ? o.spreadFactorQ32 : spreadFactor(this.rng.pick([0, 2, 3, 5, 7, 10, 15, 25]));
    const ix: DecodedHadronInstruction =
      tag === 5
        ? { tag, instruction: 'UpdateMidprice', sequence: sequence.toString(), midprice_q32: midprice.toString() }
        : tag === 9
          ? { tag, instruction: 'UpdateBaseSpread', sequence: sequence.toString(), spread_factor_q32: spread.toString() }
          : {
              tag,
              instruction: 'UpdateMidpriceAndBaseSpread',
              sequence: sequence.toString(),
              midprice_q32: midprice.toString(),
              spread_factor_q32: spread.toString(),
            };
    // [C] tags 5/9/10 read their prefix and ignore trailing bytes: some clients send padded data.
    const encoded = encodeInstruction(ix);
    const data = this.rng.chance(SHAPE_RATES.oracleTrailingBytes) ? Uint8Array.from([...encoded, ...this.rng.bytes(this.rng.int(1, 16))]) : encoded;
    return { tag, ix, data, sequence, midprice, spread, stale };
  }

  private oracleInstruction(pool: PoolRuntime, update: PlannedOracleUpdate): TopLevelInstruction {
    return {
      programId: pool.programId,
      accounts: [signer(pool.quotingAuthority), writable(pool.addresses.midprice_oracle.address), readonly(SYSVAR_CLOCK)],
      data: update.data,
      units: 35,
    };
  }

  /** Applies a (non-stale) update at `slot` to the pool's oracle; the account is written by the transaction. */
  private applyOracleUpdate(pool: PoolRuntime, update: PlannedOracleUpdate, slot: number): void {
    pool.oracle = { sequence: update.sequence, midpriceQ32: update.midprice, spreadFactorQ32: update.spread, lastUpdateSlot: BigInt(slot) };
  }

  private recordOracleUpdate(pool: PoolRuntime, update: PlannedOracleUpdate, tx: StoredTx, location: InstructionLocation): void {
    const fact: OracleUpdateFact = {
      kind: 'oracle_update',
      event_id:
        location.inner_index === null ? `${tx.signature}:${location.top_level_index}` : `${tx.signature}:${location.top_level_index}:${location.inner_index}`,
      instruction: update.ix.instruction as OracleUpdateFact['instruction'],
      tag: update.tag,
      program: pool.programId,
      program_version: pool.version,
      signature: tx.signature,
      slot: tx.slot,
      block_time: tx.blockTime,
      instruction_location: location,
      oracle: pool.addresses.midprice_oracle.address,
      quoting_authority: pool.quotingAuthority,
      sequence: update.sequence.toString(),
      midprice_q32: update.tag === 9 ? null : update.midprice.toString(),
      spread_factor_q32: update.tag === 5 ? null : update.spread.toString(),
      pool_config_via_registry: pool.fact.config,
      tx_index: tx.txIndex,
    };
    this.truth.oracle_updates.push(fact);
  }

  private oracleUpdate(pool: PoolRuntime, slot: number): void {
    const update = this.planOracleUpdate(pool, this.rng.chance(0.01));
    const hadronIx = this.oracleInstruction(pool, update);
    // Sometimes through a keeper program (a CPI, stackHeight 2) rather than top level.
    const viaKeeper = this.rng.chance(SHAPE_RATES.oracleViaCpi);
    const top: TopLevelInstruction = viaKeeper
      ? {
          programId: this.keeperProgram,
          accounts: [readonly(pool.programId), ...hadronIx.accounts],
          data: Uint8Array.of(0x6b, 0x65, 0x65, 0x70),
          units: 1_800,
          logs: ['Instruction: Push'],
          inner: [{ ...hadronIx, stackHeight: 2 }],
        }
      : hadronIx;
    if (!update.stale) this.applyOracleUpdate(pool, update, slot);
    const executed = this.run(
      slot,
      {
        version: 'legacy',
        feePayer: pool.quotingAuthority,
        instructions: [top],
        failure: update.stale ? { instructionIndex: 0, custom: HADRON_ERRORS.staleSequence, innerIndex: viaKeeper ? 0 : undefined } : undefined,
        writes: update.stale ? undefined : [{ address: pool.addresses.midprice_oracle.address, state: this.oracleState(pool) }],
      },
      1_400,
    );
    if (update.stale) {
      this.failed(executed, 'oracle_update', pool, 'stale_sequence');
      return;
    }
    this.recordOracleUpdate(pool, update, executed.stored, { top_level_index: executed.prefix, inner_index: viaKeeper ? 0 : null });
  }

  private failed(executed: ExecutedTx, kind: FailedTxFact['kind'], pool: PoolRuntime, reason: FailedTxFact['reason']): void {
    const tx = executed.stored;
    this.truth.failed_transactions.push({
      signature: tx.signature,
      slot: tx.slot,
      block_time: tx.blockTime,
      tx_index: tx.txIndex,
      kind,
      pool_config: pool.fact.config,
      reason,
      err: tx.err,
    });
  }

  private tokenBalance(address: string): bigint {
    const state = this.ledger.getAccount(address);
    return state ? tokenAccountAmount(state.data) : 0n;
  }

  /**
   * `count` swaps by one trader on one pool, priced at the oracle in effect now, each on the vaults
   * the previous one left. Null when the trader cannot afford them (nothing is sent).
   */
  private planSwaps(pool: PoolRuntime, trader: Trader, count: number, slippage: boolean): PlannedSwap[] | null {
    const planned: PlannedSwap[] = [];
    const vaults = { x: this.tokenBalance(pool.addresses.vault_x.address), y: this.tokenBalance(pool.addresses.vault_y.address) };
    for (let k = 0; k < count; k++) {
      const isX = this.rng.chance(0.5);
      const [inMint, outMint, inProgram, outProgram] = isX
        ? [pool.mintX, pool.mintY, pool.tokenProgramX, pool.tokenProgramY]
        : [pool.mintY, pool.mintX, pool.tokenProgramY, pool.tokenProgramX];
      const userSource = this.ata(trader.key, inMint, inProgram);
      const userDest = this.ata(trader.key, outMint, outProgram);
      const available = this.tokenBalance(userSource) - planned.filter((p) => p.userSource === userSource).reduce((a, p) => a + p.amountIn, 0n);
      if (available <= 0n) return null;
      if (count > 1 && !this.ledger.getAccount(userDest)) return null;
      const value = this.rng.logUniform(pool.swapValue.min, pool.swapValue.max);
      const mid = midpriceRaw(pool);
      let amountIn = BigInt(Math.max(1, Math.floor(isX ? (value * 10 ** pool.decimalsY) / mid : value * 10 ** pool.decimalsY)));
      if (amountIn > available) amountIn = available / 2n;
      const vaultOut = isX ? vaults.y : vaults.x;
      let quote = quoteSwap(pool, isX, amountIn, pool.fee.ppm);
      if (quote.out > vaultOut / 5n) {
        amountIn = (amountIn * (vaultOut / 5n)) / (quote.out + 1n);
        quote = quoteSwap(pool, isX, amountIn, pool.fee.ppm);
      }
      if (amountIn === 0n || quote.out === 0n) return null;
      const minOut = slippage && k === 0 ? quote.out + 1n + quote.out / 100n : (quote.out * BigInt(this.rng.pick([9_900, 9_950, 9_990, 10_000]))) / 10_000n;
      const expiration = this.rng.chance(0.5) ? I64_MAX : BigInt(this.ledger.blockTimeOf(this.ledger.head) + this.rng.int(20, 120));
      // [C] any non-zero is_x sells X: a few clients send another non-zero byte.
      const isXByte = !isX ? 0 : this.rng.chance(SHAPE_RATES.nonCanonicalIsX) ? this.rng.pick([2, 7, 128, 255]) : 1;
      planned.push({
        isX,
        isXByte,
        amountIn,
        minOut,
        expiration,
        fee: quote.fee,
        amountOut: quote.out,
        userSource,
        userDest,
        inMint,
        outMint,
        inProgram,
        outProgram,
        midpriceQ32: pool.oracle.midpriceQ32,
        spreadFactorQ32: pool.oracle.spreadFactorQ32,
      });
      if (isX) {
        vaults.x += quote.net;
        vaults.y -= quote.out;
      } else {
        vaults.y += quote.net;
        vaults.x -= quote.out;
      }
    }
    return planned;
  }

  /** The router's platform fee on the last swap's output (TransferChecked), when it has one. */
  private platformFee(pool: PoolRuntime, last: PlannedSwap): RouterPlatformFee | undefined {
    const amount = last.amountOut / 1_000n; // 10 bps
    if (amount === 0n) return undefined;
    const decimals = last.outMint === pool.mintX ? pool.decimalsX : pool.decimalsY;
    return {
      from: last.userDest,
      to: this.ata(this.routerFeeOwner, last.outMint, last.outProgram),
      mint: last.outMint,
      tokenProgram: last.outProgram,
      decimals,
      amount,
    };
  }

  private swap(pool: PoolRuntime, slot: number): void {
    const trader = this.rng.pick(this.traders);
    const route: SwapRoute = this.rng.weighted([
      ['legacy-direct', 0.48],
      ['v0-direct', 0.15],
      ['v0-cpi', 0.15],
      ['legacy-cpi', 0.07],
      ['legacy-double', 0.06],
      ['v0-cpi-double', 0.05],
      ['legacy-direct-cpi', 0.02],
      ['v0-direct-cpi', 0.02],
    ] as const);
    const double = route === 'legacy-double' || route === 'v0-cpi-double' || route.endsWith('direct-cpi');
    const viaRouter = route.includes('cpi');
    const active = pool.config.state === 1;
    const slippage = active && this.rng.chance(this.options.failedSwapRate);
    const vaultX = this.tokenBalance(pool.addresses.vault_x.address);
    const vaultY = this.tokenBalance(pool.addresses.vault_y.address);
    const planned = this.planSwaps(pool, trader, double ? 2 : 1, slippage);
    if (!planned) return;
    const failure = !active
      ? ({ custom: HADRON_ERRORS.poolNotActive, reason: 'pool_not_active' } as const)
      : slippage
        ? ({ custom: HADRON_ERRORS.slippageExceeded, reason: 'slippage' } as const)
        : null;
    const built = buildSwapTransaction({
      pool,
      trader: trader.key,
      route,
      swaps: planned,
      routerProgram: this.routerProgram,
      lookupTable: { address: pool.lookupTable, addresses: this.lookupTables.get(pool.lookupTable)! },
      createDestAccount: !this.ledger.getAccount(planned[0].userDest),
      failure: failure?.custom ?? null,
      platformFee: viaRouter && this.rng.chance(SHAPE_RATES.routerPlatformFee) ? this.platformFee(pool, planned[planned.length - 1]) : undefined,
      // A transaction from before stackHeight was recorded: only sound to decode (from balance
      // deltas) when the swap is the pool's only one in the transaction, as on chain back then.
      omitStackHeight: viaRouter && !double && this.rng.chance(SHAPE_RATES.cpiWithoutStackHeight),
    });
    const executed = this.run(slot, built.spec, 300_000);
    if (failure) {
      this.failed(executed, 'swap', pool, failure.reason);
      return;
    }
    this.recordSwaps(executed, pool, trader, planned, built.locations, vaultX, vaultY);
    this.vaultChange(
      executed,
      pool,
      planned.map(() => 'swap'),
      vaultX,
      vaultY,
    );
  }

  /**
   * An oracle update and a swap on the same pool in one transaction (a market maker's bundle), in
   * either order: the swap is priced at the midprice in effect when it executes — the new one when
   * the update comes first.
   */
  private swapWithOracleUpdate(pool: PoolRuntime, slot: number): void {
    const trader = this.rng.pick(this.traders);
    const updateFirst = this.rng.chance(0.5);
    const vaultX = this.tokenBalance(pool.addresses.vault_x.address);
    const vaultY = this.tokenBalance(pool.addresses.vault_y.address);
    const update = this.planOracleUpdate(pool, false);
    const before = pool.oracle;
    if (updateFirst) this.applyOracleUpdate(pool, update, slot);
    const planned = this.planSwaps(pool, trader, 1, false);
    if (!planned || !this.ledger.getAccount(planned[0].userDest)) {
      pool.oracle = before; // nothing sent
      return;
    }
    if (!updateFirst) this.applyOracleUpdate(pool, update, slot);
    const built = buildSwapTransaction({
      pool,
      trader: trader.key,
      route: 'legacy-direct',
      swaps: planned,
      routerProgram: this.routerProgram,
      lookupTable: { address: pool.lookupTable, addresses: this.lookupTables.get(pool.lookupTable)! },
      createDestAccount: false,
      failure: null,
    });
    const oracleIx = this.oracleInstruction(pool, update);
    const instructions = updateFirst ? [oracleIx, ...built.spec.instructions] : [...built.spec.instructions, oracleIx];
    const shift = updateFirst ? 1 : 0;
    const executed = this.run(
      slot,
      { ...built.spec, instructions, writes: [{ address: pool.addresses.midprice_oracle.address, state: this.oracleState(pool) }] },
      300_000,
    );
    const locations = built.locations.map((l) => ({ ...l, top_level_index: l.top_level_index + shift }));
    const oracleAt = { top_level_index: executed.prefix + (updateFirst ? 0 : built.spec.instructions.length), inner_index: null };
    if (updateFirst) this.recordOracleUpdate(pool, update, executed.stored, oracleAt);
    this.recordSwaps(executed, pool, trader, planned, locations, vaultX, vaultY);
    if (!updateFirst) this.recordOracleUpdate(pool, update, executed.stored, oracleAt);
    this.vaultChange(executed, pool, ['swap'], vaultX, vaultY);
  }

  private recordSwaps(
    executed: ExecutedTx & { prefix: number },
    pool: PoolRuntime,
    trader: Trader,
    planned: PlannedSwap[],
    locations: InstructionLocation[],
    vaultX: bigint,
    vaultY: bigint,
  ): void {
    const tx = executed.stored;
    const post = (address: string) => {
      const i = executed.accountKeys.indexOf(address);
      return executed.postTokenBalances.find((b) => b.accountIndex === i)!.uiTokenAmount.amount;
    };
    const after = { x: vaultX, y: vaultY };
    for (const [k, s] of planned.entries()) {
      const location = locations[k];
      const top = location.top_level_index + executed.prefix;
      if (s.isX) {
        after.x += s.amountIn - s.fee;
        after.y -= s.amountOut;
      } else {
        after.y += s.amountIn - s.fee;
        after.x -= s.amountOut;
      }
      const fact: SwapFact = {
        kind: 'swap',
        event_id: location.inner_index === null ? `${tx.signature}:${top}` : `${tx.signature}:${top}:${location.inner_index}`,
        program: pool.programId,
        program_version: pool.version,
        signature: tx.signature,
        slot: tx.slot,
        block_time: tx.blockTime,
        instruction_location: { top_level_index: top, inner_index: location.inner_index },
        pool_config: pool.fact.config,
        midprice_oracle: pool.addresses.midprice_oracle.address,
        is_x: s.isXByte,
        side: s.isX ? 'sell' : 'buy',
        input_mint: s.inMint,
        output_mint: s.outMint,
        trader: trader.key,
        user_source: s.userSource,
        user_dest: s.userDest,
        vault_source: s.isX ? pool.addresses.vault_x.address : pool.addresses.vault_y.address,
        vault_dest: s.isX ? pool.addresses.vault_y.address : pool.addresses.vault_x.address,
        fee_recipient_ata: pool.fee.atas[s.inMint],
        instruction_args: { amount_in: s.amountIn.toString(), min_out: s.minOut.toString(), expiration: s.expiration.toString() },
        amount_in: s.amountIn.toString(),
        amount_in_to_vault: (s.amountIn - s.fee).toString(),
        amount_out: s.amountOut.toString(),
        protocol_fee_raw: s.fee.toString(),
        protocol_fee_mint: s.inMint,
        vault_x: pool.addresses.vault_x.address,
        vault_y: pool.addresses.vault_y.address,
        vault_x_after: post(pool.addresses.vault_x.address),
        vault_y_after: post(pool.addresses.vault_y.address),
        tx_index: tx.txIndex,
        tx_version: tx.version,
        route: location.inner_index === null ? 'direct' : 'cpi',
        vault_x_after_instruction: after.x.toString(),
        vault_y_after_instruction: after.y.toString(),
        midprice_q32: s.midpriceQ32.toString(),
        spread_factor_q32: s.spreadFactorQ32.toString(),
        fee_config: pool.fee.address,
        fee_ppm: pool.fee.ppm,
        fee_split: pool.fee.isPoolFee && pool.fee.split.length > 0 ? pool.fee.split.map((w) => ({ ...w })) : null,
        decimals_x: pool.decimalsX,
        decimals_y: pool.decimalsY,
      };
      this.truth.swaps.push(fact);
    }
  }

  private vaultChange(executed: ExecutedTx, pool: PoolRuntime, causes: string[], beforeX: bigint, beforeY: bigint): void {
    const tx = executed.stored;
    const x = this.tokenBalance(pool.addresses.vault_x.address);
    const y = this.tokenBalance(pool.addresses.vault_y.address);
    // Only a transaction that changed a vault balance (post ≠ pre) is a change, whatever its instructions.
    if (x === beforeX && y === beforeY) return;
    const change: VaultBalanceChange = {
      signature: tx.signature,
      slot: tx.slot,
      block_time: tx.blockTime,
      tx_index: tx.txIndex,
      pool_config: pool.fact.config,
      vault_x: pool.addresses.vault_x.address,
      vault_y: pool.addresses.vault_y.address,
      vault_x_before: beforeX.toString(),
      vault_y_before: beforeY.toString(),
      vault_x_after: x.toString(),
      vault_y_after: y.toString(),
      causes,
    };
    this.truth.vault_balance_changes.push(change);
  }

  private liquidity(pool: PoolRuntime, slot: number, kind: 'deposit' | 'withdraw', fixed?: { x: bigint; y: bigint } | 'all'): void {
    const vaultX = this.tokenBalance(pool.addresses.vault_x.address);
    const vaultY = this.tokenBalance(pool.addresses.vault_y.address);
    const fraction = () => BigInt(this.rng.int(5, 60)); // per mille
    let amountX = fixed === 'all' ? vaultX : fixed ? fixed.x : this.rng.chance(0.15) ? 0n : (vaultX * fraction()) / 1000n;
    let amountY = fixed === 'all' ? vaultY : fixed ? fixed.y : this.rng.chance(0.15) ? 0n : (vaultY * fraction()) / 1000n;
    if (kind === 'deposit') {
      amountX = bigMin(amountX, this.tokenBalance(pool.authorityAtaX));
      amountY = bigMin(amountY, this.tokenBalance(pool.authorityAtaY));
    }
    if (amountX === 0n && amountY === 0n) return;
    const a = pool.addresses;
    const [from, to, authority] =
      kind === 'deposit'
        ? ([[pool.authorityAtaX, pool.authorityAtaY], [a.vault_x.address, a.vault_y.address], pool.authority] as const)
        : ([[a.vault_x.address, a.vault_y.address], [pool.authorityAtaX, pool.authorityAtaY], a.config.address] as const);
    const inner = [];
    if (amountX > 0n)
      inner.push({
        programId: pool.tokenProgramX,
        accounts: [writable(from[0]), writable(to[0]), readonly(authority)],
        data: tokenTransferData(amountX),
        stackHeight: 2,
      });
    if (amountY > 0n)
      inner.push({
        programId: pool.tokenProgramY,
        accounts: [writable(from[1]), writable(to[1]), readonly(authority)],
        data: tokenTransferData(amountY),
        stackHeight: 2,
      });
    const expiration = BigInt(this.ledger.blockTimeOf(slot) + 60);
    const ix: TopLevelInstruction = {
      programId: pool.programId,
      accounts: [
        signer(pool.authority),
        writable(a.vault_x.address),
        writable(a.vault_y.address),
        writable(pool.authorityAtaX),
        writable(pool.authorityAtaY),
        readonly(a.config.address),
        readonly(pool.tokenProgramX),
        readonly(pool.tokenProgramY),
      ],
      data: liquidityData(kind === 'deposit' ? DEPOSIT_TAG : WITHDRAW_TAG, amountX, amountY, expiration),
      units: 9_000,
      inner,
    };
    const executed = this.run(slot, { version: 'legacy', feePayer: pool.authority, instructions: [ix] }, 60_000);
    const tx = executed.stored;
    const ixIndex = executed.prefix;
    const fact: LiquidityFact = {
      kind,
      event_id: `${tx.signature}:${ixIndex}`,
      signature: tx.signature,
      slot,
      block_time: tx.blockTime,
      tx_index: tx.txIndex,
      pool_config: pool.fact.config,
      amount_x: amountX.toString(),
      amount_y: amountY.toString(),
      vault_x_after: this.tokenBalance(a.vault_x.address).toString(),
      vault_y_after: this.tokenBalance(a.vault_y.address).toString(),
    };
    this.truth.liquidity.push(fact);
    this.vaultChange(executed, pool, [kind], vaultX, vaultY);
  }

  private withdrawAll(pool: PoolRuntime, slot: number): void {
    this.liquidity(pool, slot, 'withdraw', 'all');
  }

  private setPoolState(pool: PoolRuntime, state: number, slot: number): void {
    pool.config = { ...pool.config, state };
    const executed = this.run(
      slot,
      {
        version: 'legacy',
        feePayer: pool.authority,
        instructions: [
          {
            programId: pool.programId,
            accounts: [signer(pool.authority), writable(pool.addresses.config.address)],
            data: setPoolStateData(state),
            units: 1_200,
          },
        ],
        writes: [{ address: pool.addresses.config.address, state: this.configState(pool) }],
      },
      5_000,
    );
    pool.fact.state_history.push({
      slot,
      block_time: executed.stored.blockTime,
      signature: executed.stored.signature,
      state,
      state_name: poolStateName(state) ?? `Unknown(${state})`,
    });
  }

  private changeFeeSplit(pool: PoolRuntime, generation: number, slot: number): void {
    pool.fee.split = this.randomSplit(pool.index, generation);
    if (this.rng.chance(0.5)) pool.fee.ppm = this.rng.pick([5, 25, 100, 250]);
    const executed = this.run(
      slot,
      {
        version: 'legacy',
        feePayer: pool.fee.admin,
        instructions: [
          { programId: pool.programId, accounts: [signer(pool.fee.admin), writable(pool.fee.address)], data: updateFeeConfigData(pool.fee.ppm), units: 2_400 },
        ],
        writes: [{ address: pool.fee.address, state: this.feeConfigState(pool) }],
      },
      10_000,
    );
    const change: FeeSplitChange = {
      pool_config: pool.fact.config,
      fee_config: pool.fee.address,
      slot,
      block_time: executed.stored.blockTime,
      signature: executed.stored.signature,
      fee_ppm: pool.fee.ppm,
      recipients: pool.fee.split.map((w) => ({ ...w })),
    };
    this.truth.fee_split_changes.push(change);
  }
}

export const signer = (pubkey: string) => ({ pubkey, isSigner: true, isWritable: true });
export const writable = (pubkey: string) => ({ pubkey, isSigner: false, isWritable: true });
export const readonly = (pubkey: string) => ({ pubkey, isSigner: false, isWritable: false });

function spreadFactor(bps: number): bigint {
  return (BigInt(10_000 - bps) << 32n) / 10_000n;
}

function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
