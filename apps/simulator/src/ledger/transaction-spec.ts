import type { AccountState, TxVersion } from './ledger';

/** A transaction as the simulator describes it to the executor: instructions with their accounts, CPIs nested under them. */

export interface AccountMeta {
  pubkey: string;
  isSigner: boolean;
  isWritable: boolean;
}

export interface Instruction {
  programId: string;
  accounts: AccountMeta[];
  data: Uint8Array;
  /** Compute units this program uses itself (children add theirs); a default per program otherwise. */
  units?: number;
  /** `Program log:` lines this program prints before its children. */
  logs?: string[];
}

export interface InnerInstruction extends Instruction {
  stackHeight: number;
}

export interface TopLevelInstruction extends Instruction {
  inner?: InnerInstruction[];
}

export interface LookupTable {
  address: string;
  addresses: readonly string[];
}

export interface TxFailure {
  /** Top-level instruction that failed. */
  instructionIndex: number;
  /** Custom program error code. */
  custom: number;
  /** When set, the failing program is this CPI (inner index) under the top-level instruction. */
  innerIndex?: number;
}

export interface TxSpec {
  version: TxVersion;
  feePayer: string;
  instructions: TopLevelInstruction[];
  lookupTables?: LookupTable[];
  computeUnitLimit: number;
  /** Lamports on top of 5000 per signature. */
  priorityFeeLamports: number;
  failure?: TxFailure;
  /** Account states the Hadron program writes (oracle, config, fee config), applied on success. */
  writes?: { address: string; state: AccountState | null }[];
  /**
   * Serve inner instructions without `stackHeight` (null), as the RPC does for transactions from
   * before the field was recorded. Execution still follows the stack heights given.
   */
  omitStackHeight?: boolean;
}
