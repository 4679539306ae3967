import { RENT_EXEMPT_EPOCH } from '../ledger/ledger';
import { associatedTokenAddress, metaplexMetadataAddress } from '../spl/addresses';
import {
  encodeMetadata,
  encodeMint,
  encodeToken2022Mint,
  encodeTokenAccount,
  encodeTokenMetadataState,
  rentExempt,
  tokenAccountRent,
  type TokenMetadataFields,
} from '../spl/spl-accounts';
import { METAPLEX_PROGRAM, NATIVE_MINT, TOKEN_2022_PROGRAM } from '../spl/well-known';
import { templateMint, type TokenTemplate } from './catalog';
import type { TokenFact } from './ground-truth';
import type { MarketContext } from './market-context';

/**
 * The mint of `template` and wherever its name lives (see MetadataKind), written at `slot`,
 * built with the field's libraries; and its ground truth, from what was written.
 */
export function createToken(m: MarketContext, template: TokenTemplate, slot: number): TokenFact {
  const mint = templateMint(template, m.keys);
  const existing = m.tokens.get(mint);
  if (existing) return existing;
  const kind = template.metadata;
  const program = template.tokenProgram;
  if ((kind === 'token-2022' || kind === 'pointer') && program !== TOKEN_2022_PROGRAM)
    throw new Error(`token ${template.symbol}: metadata '${kind}' needs a Token-2022 mint`);
  const put = (address: string, owner: string, data: Uint8Array) =>
    m.ledger.setAccount(address, { owner, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH }, slot);
  const authority = mint === NATIVE_MINT ? null : m.keys.key(`mint-authority/${template.symbol}`);
  const updateAuthority = authority ?? m.keys.key('metadata-authority');
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
      metadata = m.keys.key(`token-metadata/${template.symbol}`);
      put(mint, program, encodeToken2022Mint(base, { metadataPointer: { authority: updateAuthority, metadataAddress: metadata } }));
      put(metadata, m.tokenMetadataProgram, encodeTokenMetadataState(fields));
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
  m.tokens.set(mint, fact);
  m.tokenOrigins.set(mint, { template, updateAuthority });
  return fact;
}

/** A token account with `amount`, created at genesis (WSOL accounts hold rent + amount as lamports). */
export function createTokenAccount(m: MarketContext, owner: string, mint: string, tokenProgram: string, amount: bigint, slot: number): string {
  const address = associatedTokenAddress(owner, mint, tokenProgram);
  const native = mint === NATIVE_MINT;
  const rent = tokenAccountRent(tokenProgram);
  m.ledger.setAccount(
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

/** The owner's associated token account of `token`, created with `amount` unless it exists. */
export function ensureFunded(m: MarketContext, owner: string, token: TokenFact, amount: bigint, slot: number): string {
  const address = associatedTokenAddress(owner, token.mint, token.token_program);
  const existing = m.ledger.getAccount(address);
  if (existing) return address;
  return createTokenAccount(m, owner, token.mint, token.token_program, amount, slot);
}
