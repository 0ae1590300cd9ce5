// The public HTTP API: request verdicts, the inspector, segments, campaigns, the console, and its OpenAPI.
export * from './app';
export type * from './answers';
export { SEGMENT_BODY_LIMIT } from './segments';
export { segmenterOpenApi } from './openapi';
export {
  CONSOLE_CSP,
  CONSOLE_NAV,
  consolePage,
  loadConsoleAssets,
  parseSqlExamples,
  upliftWords,
  wilsonInterval,
  type ConsoleAssets,
  type ConsoleBuild,
  type ShellOptions,
} from './console';
