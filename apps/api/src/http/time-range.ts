import { invalidParameter } from './api-exception.filter';

export const START_AFTER_END_MESSAGE = 'start_time must be less than or equal to end_time';

/** Cross-parameter check shared by the history endpoints (single parameters are checked by the pipe). */
export function assertOrdered(start: number, end: number, hint = ''): void {
  if (start > end) throw invalidParameter('start_time', `${START_AFTER_END_MESSAGE}${hint}`);
}
