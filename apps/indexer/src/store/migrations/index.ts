import type { MigrationSet } from '@hadron/platform';
import { Indexer1764000000000 } from './1764000000000-indexer';
import { IndexerGapPrograms1764100000000 } from './1764100000000-gap-programs';
import { IndexerHeldTx1764200000000 } from './1764200000000-held-tx';
import { IndexerLease1764300000000 } from './1764300000000-lease';
import { IndexerChain1764400000000 } from './1764400000000-chain';

/** The indexer's tables (schema `indexer`): cursors, pool state, gap ledger, held transactions, decode problems, the cluster lease, each cluster's chain (genesis hash). Apply after eventLogMigrations. */
export const indexerMigrations: MigrationSet = {
  name: 'indexer',
  tableName: 'indexer_migrations',
  migrations: [Indexer1764000000000, IndexerGapPrograms1764100000000, IndexerHeldTx1764200000000, IndexerLease1764300000000, IndexerChain1764400000000],
};
