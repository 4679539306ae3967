import type { DecodeProblem, DecodeProblemCode, InstructionLocation, SwapFact } from './transaction-facts';

/** The fields every instruction fact shares. */
export type InstructionFactHeader = Pick<SwapFact, 'eventId' | 'program' | 'programVersion' | 'signature' | 'slot' | 'blockTime' | 'instructionLocation'>;

/** Builds the problem record for the instruction being decoded. */
export type ProblemReporter = (code: DecodeProblemCode, message: string, poolConfig?: string) => DecodeProblem;

export function eventIdOf(signature: string, location: InstructionLocation): string {
  return location.innerIndex === null ? `${signature}:${location.topLevelIndex}` : `${signature}:${location.topLevelIndex}:${location.innerIndex}`;
}
