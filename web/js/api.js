// api.js -- REST client. Never throws for HTTP or network errors: every call
// resolves to {ok, status, data, error} so views can show a readable message.
//
// Note: Chromium logs "Failed to load resource" for any 4xx/5xx response, so
// optional routes that answer 404 (not implemented by this server) are
// remembered in `missingRoutes` and not asked again in this page's lifetime.

import { reviveCounts } from './counts.js';

const KEY_STORAGE = 'jitscope.apiKey';
let apiKey = sessionStorage.getItem(KEY_STORAGE) || '';
const authListeners = new Set();

export function setApiKey(key) {
  apiKey = key || '';
  if (apiKey) sessionStorage.setItem(KEY_STORAGE, apiKey);
  else sessionStorage.removeItem(KEY_STORAGE);
}
export function getApiKey() {
  return apiKey;
}
export function onAuthRequired(fn) {
  authListeners.add(fn);
  return () => authListeners.delete(fn);
}

// Routes found missing (404 "no such route"), keyed by a caller-chosen name.
export const missingRoutes = new Map();

export async function api(path, { method = 'GET', body, timeoutMs = 15000, signal } = {}) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs);
  const onAbort = () => ctl.abort(signal.reason);
  if (signal) signal.addEventListener('abort', onAbort, { once: true });
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  try {
    const res = await fetch(path, {
      method,
      headers,
      signal: ctl.signal,
      cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    const text = await res.text();
    if (text) {
      try {
        data = JSON.parse(text, reviveCounts);
      } catch {
        data = null;
      }
    }
    if (res.ok) return { ok: true, status: res.status, data, error: null };
    const error =
      (data && typeof data.error === 'string' && data.error) || `${res.status} ${res.statusText}`;
    if (res.status === 401) for (const fn of authListeners) fn(error);
    return { ok: false, status: res.status, data, error };
  } catch (e) {
    if (signal && signal.aborted)
      return { ok: false, status: 0, data: null, error: 'cancelled', cancelled: true };
    const timeout = (e && e.name === 'TimeoutError') || ctl.signal.reason?.name === 'TimeoutError';
    return {
      ok: false,
      status: 0,
      data: null,
      error: timeout
        ? `no answer from the jitscope server within ${timeoutMs / 1000} s`
        : 'the jitscope server is unreachable (is it still running?)',
      network: true,
    };
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener('abort', onAbort);
  }
}

// True when a result says the route itself does not exist on this server.
export function isMissingRoute(r) {
  return r.status === 404 && /no such route/i.test(r.error || '');
}

// Human text for a failed call: "GET /api/processes: 404 no such route".
export function describeError(what, r) {
  if (r.status === 0) return `${what}: ${r.error}`;
  return `${what}: ${r.status} ${r.error}`;
}

let configPromise = null;
// GET /api/config once per page: {ok, data} or {ok:false, missing:true}.
export function getConfig() {
  if (!configPromise) {
    configPromise = api('/api/config').then((r) => {
      if (!r.ok && isMissingRoute(r)) missingRoutes.set('config', r.error);
      if (!r.ok && r.network) configPromise = null; // try again later
      return r;
    });
  }
  return configPromise;
}

// Downloads a route's export (?format=csv|json) as a file, with the API key
// if there is one (a plain link could not send it). Resolves to
// {ok, status, error, filename}.
export async function downloadExport(path) {
  const headers = {};
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  try {
    const res = await fetch(path, { headers, cache: 'no-store' });
    if (!res.ok) {
      let error = `HTTP ${res.status}`;
      try {
        error = (await res.json()).error || error;
      } catch {
        /* not JSON */
      }
      return { ok: false, status: res.status, error };
    }
    const disposition = res.headers.get('Content-Disposition') || '';
    const filename = (/filename="([^"]+)"/.exec(disposition) || [])[1] || 'jitscope-export';
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    return { ok: true, status: res.status, filename };
  } catch (e) {
    return { ok: false, status: 0, error: String((e && e.message) || e) };
  }
}
