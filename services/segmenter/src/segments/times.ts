/** ClickHouse's text of a DateTime64(3, 'UTC') (`YYYY-MM-DD hh:mm:ss.sss`) → RFC 3339 UTC with milliseconds. */
export const chToRfc3339 = (text: string): string => `${text.replace(' ', 'T')}Z`;
