import type { DecodeProblem, DecodeProblemCode, InstructionLocation, SwapFact } from './transaction-facts';

/** The fields every instruction fact shares. */
export type InstructionFactHeader = Pick<SwapFact, 'event_id' | 'program' | 'program_version' | 'signature' | 'slot' | 'block_time' | 'instruction_location'>;

/** Builds the problem record for the instruction being decoded. */
export type ProblemReporter = (code: DecodeProblemCode, message: string, poolConfig?: string) => DecodeProblem;

export function eventIdOf(signature: string, location: InstructionLocation): string {
  return location.inner_index === null ? `${signature}:${location.top_level_index}` : `${signature}:${location.top_level_index}:${location.inner_index}`;
}
