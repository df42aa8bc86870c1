import type { FastifyInstance } from 'fastify';
import { isUf, type Uf } from '../data/pools.js';
import { buildEsocial, buildQsa, buildSintegra, type SintegraMode } from '../data/registry-records.js';
import { normaliseText } from '../data/lawsuit-search.js';
import { badRequest, envelope, singleParam } from '../envelope.js';
import { isValidNis, normaliseCnpj, normaliseCpf, stripMask } from '../identifiers.js';
import { esocialShape } from '../scenarios.js';
import { setFingerprint, type RouteDeps } from './deps.js';

function requiredUf(query: unknown): Uf {
  const uf = singleParam(query, 'uf')?.trim().toUpperCase();
  if (uf === undefined) throw badRequest("parameter 'uf' is required with 'cpf' or 'ie'");
  if (!isUf(uf)) throw badRequest("parameter 'uf' must be a two-letter state code");
  return uf;
}

/** Exactly one of the three modes: cnpj | cpf + uf | ie + uf (spec). */
function sintegraMode(query: unknown): SintegraMode {
  const cnpj = singleParam(query, 'cnpj');
  const cpf = singleParam(query, 'cpf');
  const ie = singleParam(query, 'ie');
  const modes = [cnpj, cpf, ie].filter((value) => value !== undefined).length;
  if (modes !== 1) throw badRequest('use exactly one search mode: cnpj, cpf with uf, or ie with uf');
  if (cnpj !== undefined) {
    const value = normaliseCnpj(cnpj);
    if (value === undefined) throw badRequest('cnpj must be a valid company tax id with all 14 characters');
    return { kind: 'cnpj', cnpj: value };
  }
  if (cpf !== undefined) {
    const value = normaliseCpf(cpf);
    if (value === undefined) throw badRequest('cpf must be a valid person tax id with all 11 digits');
    return { kind: 'cpf', cpf: value, uf: requiredUf(query) };
  }
  const value = stripMask(ie ?? '');
  // The spec gives no format (27 state formats, some with letters, as SP's rural "P..."): the
  // characters the service accepts.
  if (!/^[0-9A-Z]{2,20}$/.test(value) || !/\d/.test(value)) {
    throw badRequest('ie must be a state registration number');
  }
  return { kind: 'ie', ie: value, uf: requiredUf(query) };
}

const BIRTHDATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;

function validBirthdate(value: string): boolean {
  const match = BIRTHDATE.exec(value);
  if (!match) return false;
  const [, day = '', month = '', year = ''] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCDate() === Number(day) && date.getUTCMonth() === Number(month) - 1;
}

export function registerRegistryRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { cache } = deps;

  app.get('/receita-federal-and-sintegra', (request) => {
    const mode = sintegraMode(request.query);
    const seed =
      mode.kind === 'cnpj'
        ? `cnpj=${mode.cnpj}`
        : mode.kind === 'cpf'
          ? `cpf=${mode.cpf}&uf=${mode.uf}`
          : `ie=${mode.ie}&uf=${mode.uf}`;
    setFingerprint(request, seed);
    return envelope(
      request,
      'v2',
      cache.getOrBuild(`sintegra:${seed}`, () => buildSintegra(mode, seed)),
    );
  });

  app.get('/receita-federal-cnpj-qsa', (request) => {
    const raw = singleParam(request.query, 'taxId');
    if (raw === undefined) throw badRequest("parameter 'taxId' is required");
    const cnpj = normaliseCnpj(raw);
    if (cnpj === undefined) throw badRequest('taxId must be a valid company tax id with all 14 characters');
    setFingerprint(request, cnpj);
    return envelope(
      request,
      'v2',
      cache.getOrBuild(`qsa:${cnpj}`, () => buildQsa(cnpj)),
    );
  });

  app.get('/esocial-qualificacao-cadastral', (request) => {
    const query = request.query;
    const missing = ['taxId', 'birthdate', 'nis', 'name'].filter(
      (name) => (singleParam(query, name) ?? '').trim() === '',
    );
    if (missing.length > 0) throw badRequest(`required parameters missing: ${missing.join(', ')}`);
    const cpf = normaliseCpf(singleParam(query, 'taxId') ?? '');
    if (cpf === undefined) throw badRequest('taxId must be a valid person tax id with all 11 digits');
    const birthdate = (singleParam(query, 'birthdate') ?? '').trim();
    if (!validBirthdate(birthdate)) throw badRequest('birthdate must be a date DD/MM/YYYY');
    const nis = stripMask(singleParam(query, 'nis') ?? '');
    if (!/^\d{11}$/.test(nis)) throw badRequest('nis must have 11 digits');
    const name = normaliseText(singleParam(query, 'name') ?? '');
    setFingerprint(request, `${cpf}:${birthdate}:${nis}:${name}`);
    const record = buildEsocial({ cpf, birthdate, nis, name, nisValid: isValidNis(nis) });
    // The sample answers at the top level, the reference table under `data`: both happen, by rule.
    return esocialShape(cpf) === 'top-level' ? record : envelope(request, 'v2', record);
  });
}
