// The public HTTP API: request verdicts, the inspector, segments, campaigns, and its OpenAPI.
export * from './app';
export { SEGMENT_BODY_LIMIT } from './segments';
export { segmenterOpenApi } from './openapi';
