/** One JSON call to a platform route with a key, as the scenarios make them: the status and the parsed body. */
export const call = async (url: string, key: string, method: string, body?: unknown) => {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
