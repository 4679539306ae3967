import { encodeFeeConfigAccount, FEE_CONFIG_SIZE, globalFeeConfigAddress } from '@hadron/domain';
import { RENT_EXEMPT_EPOCH, type AccountState } from '../ledger/ledger';
import { rentExempt } from '../spl/spl-accounts';
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
  SPL_TOKEN_PROGRAM,
  SYSTEM_PROGRAM,
  SYSVAR_CLOCK,
  SYSVAR_OWNER,
  TOKEN_2022_PROGRAM,
} from '../spl/well-known';
import { GLOBAL_FEE } from './catalog';
import { PROGRAMS, SOL, type MarketContext } from './market-context';
import { createPool } from './pool-accounts';
import { initializePool, slotAt } from './scenario';

/**
 * The accounts before the first slot: programs and sysvars, both programs' global fee configs,
 * funded traders, and every pool of the market (the late ones planned, created by transaction at
 * their slot of the schedule).
 */
export function genesis(m: MarketContext): void {
  const slot = m.ledger.clock.firstSlot - 1;
  const put = (address: string, state: Omit<AccountState, 'rentEpoch' | 'executable'> & { executable?: boolean }) =>
    m.ledger.setAccount(address, { executable: false, rentEpoch: RENT_EXEMPT_EPOCH, ...state }, slot);
  const program = (address: string, owner: string, lamports: number) =>
    put(address, { owner, lamports, data: new Uint8Array(owner === BPF_UPGRADEABLE_LOADER ? 36 : 0), executable: true });

  for (const id of [HADRON_PROGRAM_V1, HADRON_PROGRAM_V2, m.routerProgram, m.keeperProgram, m.tokenMetadataProgram])
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
      admin: m.keys.key(`fee-admin/${version}`),
      fee_recipient: GLOBAL_FEE[version].recipient,
    };
    put(address, { owner: PROGRAMS[version], lamports: rentExempt(fee.size), data: encodeFeeConfigAccount(fee) });
    m.truth.global_fee_configs.push({ program_version: version, address, fee_ppm: fee.fee_ppm, fee_recipient: fee.fee_recipient });
  }

  // Traders: funded wallets; token accounts are created per pool below.
  const traderCount = 10 + 2 * m.options.pools;
  for (let i = 0; i < traderCount; i++) {
    const key = m.keys.key(`trader/${i}`);
    m.traders.push({ key });
    put(key, { owner: SYSTEM_PROGRAM, lamports: 25 * SOL + m.rng.int(0, SOL), data: new Uint8Array(0) });
  }

  const late = m.options.latePoolAt !== null && m.options.pools >= 6 ? m.options.pools - 1 : null;
  for (let i = 0; i < m.options.pools; i++) {
    const pool = createPool(m, i, slot, put, i === late);
    if (i === late) m.schedule.push({ slot: slotAt(m, m.options.latePoolAt!), run: (s) => initializePool(m, pool, s) });
  }
  if (m.options.newPoolAfterSeconds !== null) {
    const at = m.historyEndSlot + Math.max(1, Math.ceil((m.options.newPoolAfterSeconds * 1000) / m.options.slotMs));
    const index = m.options.pools;
    m.schedule.push({
      slot: at,
      run: (s) =>
        initializePool(
          m,
          createPool(m, index, s, (address, state) => m.ledger.setAccount(address, { executable: false, rentEpoch: RENT_EXEMPT_EPOCH, ...state }, s), true),
          s,
        ),
    });
  }
}
