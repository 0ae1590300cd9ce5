// The shell every console page's script is built on: typed DOM helpers, the key, API calls with it, polling, charts.
export { ApiRefusal, api, messageOf, refusalOf } from './api';
export { buckets, total, HOUR_MS, MINUTE_MS } from './buckets';
export { chart, unchart } from './chart';
export { byId, clear, link, table, text } from './dom';
export { storedKey } from './key';
export { every, startPage, status } from './live';
