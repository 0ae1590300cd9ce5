// The slice of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
  interface Req {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: (Req & { setupRequest?: (req: Req) => Req })[];
  }
  interface Histogram {
    p50: number;
    p90: number;
    p99: number;
    max: number;
    average: number;
  }
  interface Result {
    '2xx': number;
    non2xx: number;
    errors: number;
    timeouts: number;
    latency: Histogram;
    requests: Histogram;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
