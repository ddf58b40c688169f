// openapi.mjs -- checks HTTP responses against jitscope's OpenAPI document
// (server/openapi.json, the file the server embeds and serves at
// /api/openapi.json). lib.mjs's api() and the browser tests' apiGet() pass every
// response through checkResponse(): the operation is found by method and path
// template (HEAD as GET), the status must be documented for it (a request that
// matches no operation: the document's x-jitscope-unrouted responses; a GET
// outside /api and /metrics: x-jitscope-static), the media type must be one the
// response lists, and a JSON body must validate against its schema (ajv, JSON
// Schema 2020-12, strict). Anything else throws an OpenApiViolation, which
// waitFor() never retries. checkWsMessage() does the same for a live stream
// message (x-jitscope-websocket's serverMessages).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';

export const OPENAPI_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../server/openapi.json');

export class OpenApiViolation extends Error {
  constructor(message) { super(`OpenAPI (server/openapi.json): ${message}`); this.name = 'OpenApiViolation'; }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const COMPONENTS = 'jitscope-components';

// "#/components/schemas/X" -> "jitscope-components#/$defs/X", so that every schema
// can be compiled on its own against one shared components schema.
function rewriteRefs(v) {
  if (Array.isArray(v)) return v.map(rewriteRefs);
  if (!v || typeof v !== 'object') return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = k === '$ref' && typeof x === 'string' && x.startsWith('#/components/schemas/')
      ? `${COMPONENTS}#/$defs/${x.slice('#/components/schemas/'.length)}` : rewriteRefs(x);
  }
  return out;
}

// The JSON pointer "#/a/b" in doc.
export function resolvePointer(doc, ref) {
  if (!ref.startsWith('#/')) throw new OpenApiViolation(`only local $refs are used, not ${ref}`);
  let at = doc;
  for (const part of ref.slice(2).split('/')) {
    at = at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  if (at === undefined) throw new OpenApiViolation(`$ref ${ref} does not resolve`);
  return at;
}

// Every integer the API serves is one a JavaScript number holds exactly
// (docs/API.md, "Numbers"): the validator holds every integer schema to
// |n| <= 2^53 - 1 unless it says less (JSON.parse turns a larger one into a
// number at or above 2^53, which fails), so no response a test gets may break it.
function boundIntegers(schema) {
  if (Array.isArray(schema)) { schema.forEach(boundIntegers); return schema; }
  if (!schema || typeof schema !== 'object') return schema;
  const types = [].concat(schema.type ?? []);
  if (types.includes('integer')) {
    if (schema.maximum === undefined) schema.maximum = Number.MAX_SAFE_INTEGER;
    if (schema.minimum === undefined) schema.minimum = Number.MIN_SAFE_INTEGER;
  }
  for (const v of Object.values(schema)) boundIntegers(v);
  return schema;
}

// Loads the document once: ajv with every component schema compiled (strict: an
// unknown keyword or a bad $ref fails here), and the path templates as regexps.
export function loadOpenApi(file = OPENAPI_FILE) {
  const doc = boundIntegers(JSON.parse(fs.readFileSync(file, 'utf8')));
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  ajv.addSchema({ $id: COMPONENTS, $defs: rewriteRefs(doc.components.schemas) });
  for (const name of Object.keys(doc.components.schemas)) ajv.getSchema(`${COMPONENTS}#/$defs/${name}`);
  const routes = Object.entries(doc.paths).map(([template, item]) => ({
    template,
    item,
    params: (template.match(/\{[^}]+\}/g) || []).length,
    re: new RegExp('^' + template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+') + '$'),
  })).sort((a, b) => a.params - b.params); // literal segments win
  return { doc, ajv, routes, compiled: new Map() };
}

let shared;

// "METHOD /template" of every documented operation a checked response matched.
export const seenOperations = new Set();

// Which responses apply to (method, pathname): { where, responses }.
export function findOperation(api, method, pathname) {
  const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  const isApi = pathname === '/api' || pathname.startsWith('/api/') || pathname === '/metrics';
  const route = api.routes.find((r) => r.re.test(pathname));
  if (route && METHODS.includes(m) && route.item[m]) {
    return { where: `${m.toUpperCase()} ${route.template}`, responses: route.item[m].responses };
  }
  if (!isApi && m === 'get') {
    return { where: 'x-jitscope-static', responses: api.doc['x-jitscope-static'].responses };
  }
  return { where: 'x-jitscope-unrouted', responses: api.doc['x-jitscope-unrouted'].responses };
}

// Throws an OpenApiViolation unless the response is what the document says.
// body: the parsed JSON, or the text when it was not JSON; text: the raw body.
export function checkResponse({ method = 'GET', url, status, contentType, body, text }, api = shared ??= loadOpenApi()) {
  const pathname = new URL(url, 'http://x').pathname;
  const what = `${method} ${pathname} -> ${status}`;
  const { where, responses } = findOperation(api, method, pathname);
  seenOperations.add(where);
  let response = responses[String(status)];
  if (!response) {
    throw new OpenApiViolation(`${what}: status ${status} is not documented for ${where} (documented: ${Object.keys(responses).join(', ')})`);
  }
  if (response.$ref) response = resolvePointer(api.doc, response.$ref);
  if (method.toUpperCase() === 'HEAD' || !response.content) return;
  const media = String(contentType || '').split(';')[0].trim().toLowerCase();
  const content = response.content[media];
  if (!content) {
    throw new OpenApiViolation(`${what}: Content-Type "${contentType}" is not documented for ${where} ${status} (documented: ${Object.keys(response.content).join(', ')})`);
  }
  if (media !== 'application/json' || !content.schema) return;
  if (typeof body === 'string' && text === body) throw new OpenApiViolation(`${what}: the body is not JSON: ${text.slice(0, 200)}`);
  const key = `${where} ${status} ${media}`;
  let validate = api.compiled.get(key);
  if (!validate) {
    validate = api.ajv.compile(rewriteRefs(content.schema));
    api.compiled.set(key, validate);
  }
  if (!validate(body)) {
    const errors = validate.errors.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ' ' + JSON.stringify(e.params) : ''}`);
    throw new OpenApiViolation(`${what}: the body does not match ${where} ${status} ${media}:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 500)}`);
  }
}

// Throws an OpenApiViolation unless value matches the component schema `name`
// (a document the server writes to a file, e.g. a run's --report: Report).
export function checkSchema(name, value, api = shared ??= loadOpenApi()) {
  const validate = api.ajv.getSchema(`${COMPONENTS}#/$defs/${name}`);
  if (!validate) throw new OpenApiViolation(`no component schema ${name}`);
  if (!validate(value)) {
    const errors = validate.errors.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ' ' + JSON.stringify(e.params) : ''}`);
    throw new OpenApiViolation(`${name}: does not match:\n  ${errors.join('\n  ')}`);
  }
}

// Throws an OpenApiViolation unless msg (a parsed live stream message from the
// server) is one of x-jitscope-websocket's serverMessages.
export function checkWsMessage(msg, api = shared ??= loadOpenApi()) {
  const key = 'x-jitscope-websocket serverMessages';
  let validate = api.compiled.get(key);
  if (!validate) {
    validate = api.ajv.compile({ oneOf: rewriteRefs(api.doc['x-jitscope-websocket'].serverMessages) });
    api.compiled.set(key, validate);
  }
  if (!validate(msg)) {
    const errors = validate.errors.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new OpenApiViolation(`a WebSocket message is none of x-jitscope-websocket's serverMessages:\n  ${errors.join('\n  ')}\nmessage: ${JSON.stringify(msg).slice(0, 500)}`);
  }
}
