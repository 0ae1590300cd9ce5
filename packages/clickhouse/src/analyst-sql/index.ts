export { analystUserName, createHttpAnalystSql } from './http-analyst-sql';
