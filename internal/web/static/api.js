// The player API (/api/v1, docs/spec/API.md): a call, its error as data (status and code), and
// the idempotency key of a call that moves money.

const newKey = () => {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return hex(b);
};
// api calls the player API with a JSON body; a refusal throws an Error with the answer's status
// and error code (code "network" when no answer came).
export async function api(method, path, payload, key) {
  const headers = { Accept: 'application/json' };
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers['Idempotency-Key'] = key;
  let r;
  try {
    r = await fetch('/api/v1' + path, {
      method, headers, credentials: 'same-origin',
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
  } catch (e) {
    const err = new Error('network');
    err.code = 'network';
    throw err;
  }
  if (r.status === 204) return null;
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const err = new Error((data.error && data.error.message) || r.statusText);
    err.status = r.status;
    err.code = data.error && data.error.code;
    throw err;
  }
  return data;
}
// A money-moving call is retried once with the same key when the network fails: the server
// answers a retry with the first answer and moves no money again.
export async function apiMoney(method, path, payload) {
  const key = newKey();
  try {
    return await api(method, path, payload, key);
  } catch (e) {
    if (e.code !== 'network') throw e;
    return api(method, path, payload, key);
  }
}

// hex writes bytes in hexadecimal.
export function hex(b) {
  return Array.from(b, x => x.toString(16).padStart(2, '0')).join('');
}
