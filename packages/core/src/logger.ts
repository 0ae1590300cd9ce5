import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Structured JSON logs; secrets never leave the process (keys and auth headers are redacted). */
export function createLogger(name: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'apiKey', 'sdkKey'],
        censor: '[redacted]',
      },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}
