import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs on stdout, one logger per process, a child per component. */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}
