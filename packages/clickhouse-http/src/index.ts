export { createClickHouseHttpHandler } from './handler';
export { clickhouseHttpOpenApi } from './openapi';
// The framing, for tests that speak it as the JDBC driver does.
export { compressBlocks, decompressBlocks } from './compressed-blocks';
