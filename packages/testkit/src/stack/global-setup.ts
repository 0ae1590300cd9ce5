import { stackEndpoints } from './endpoints';

/** Integration tests run against the real stack; this makes sure it is up and exports where it is. */
export default async function globalSetup(): Promise<void> {
  const endpoints = stackEndpoints();
  Object.assign(process.env, endpoints);
}
