import { UFS, type Uf } from '../../contract/documents/uf.js';
import type { Prng } from '../random.js';

/** Synthetic vocabulary: every name here is invented, combined at random, never a real person. */
export const FIRST_NAMES = [
  'ANA',
  'BRUNO',
  'CARLA',
  'DANIEL',
  'EDUARDA',
  'FELIPE',
  'GABRIELA',
  'HENRIQUE',
  'ISABELA',
  'JOAO',
  'KARINA',
  'LUCAS',
  'MARIANA',
  'NICOLAS',
  'OLIVIA',
  'PEDRO',
  'RAFAELA',
  'SAMUEL',
  'TATIANA',
  'VITOR',
] as const;

export const SURNAMES = [
  'ALMEIDA',
  'BARBOSA',
  'CARDOSO',
  'DIAS',
  'FERREIRA',
  'GOMES',
  'LIMA',
  'MARTINS',
  'NASCIMENTO',
  'OLIVEIRA',
  'PEREIRA',
  'RIBEIRO',
  'SANTOS',
  'SOUZA',
  'TEIXEIRA',
  'VIEIRA',
] as const;

export const COMPANY_WORDS = [
  'ALFA',
  'HORIZONTE',
  'PRIMAVERA',
  'ATLANTICO',
  'CERRADO',
  'PLANALTO',
  'AURORA',
  'MERIDIANO',
  'VALE',
  'SERRA',
] as const;

export const COMPANY_KINDS = [
  'COMERCIO',
  'SERVICOS',
  'TRANSPORTES',
  'ALIMENTOS',
  'TECNOLOGIA',
  'CONSTRUCOES',
] as const;

export { UFS, type Uf };

export function isUf(value: string): value is Uf {
  return (UFS as readonly string[]).includes(value);
}

/** One invented-looking city per state (capital names; not personal data). */
export const CITY_BY_UF: Record<Uf, string> = {
  AC: 'RIO BRANCO',
  AL: 'MACEIO',
  AM: 'MANAUS',
  AP: 'MACAPA',
  BA: 'SALVADOR',
  CE: 'FORTALEZA',
  DF: 'BRASILIA',
  ES: 'VITORIA',
  GO: 'GOIANIA',
  MA: 'SAO LUIS',
  MG: 'BELO HORIZONTE',
  MS: 'CAMPO GRANDE',
  MT: 'CUIABA',
  PA: 'BELEM',
  PB: 'JOAO PESSOA',
  PE: 'RECIFE',
  PI: 'TERESINA',
  PR: 'CURITIBA',
  RJ: 'RIO DE JANEIRO',
  RN: 'NATAL',
  RO: 'PORTO VELHO',
  RR: 'BOA VISTA',
  RS: 'PORTO ALEGRE',
  SC: 'FLORIANOPOLIS',
  SE: 'ARACAJU',
  SP: 'SAO PAULO',
  TO: 'PALMAS',
};

export const STREETS = [
  'RUA DAS FLORES',
  'AVENIDA BRASIL',
  'RUA SETE DE SETEMBRO',
  'AVENIDA CENTRAL',
  'RUA DO COMERCIO',
] as const;
export const NEIGHBORHOODS = ['CENTRO', 'JARDIM AMERICA', 'VILA NOVA', 'BOA VISTA', 'SANTA CRUZ'] as const;

export const ACTIVITIES = [
  { code: '4711-3/02', description: 'Comercio varejista de mercadorias em geral - supermercados' },
  { code: '6201-5/01', description: 'Desenvolvimento de programas de computador sob encomenda' },
  { code: '4930-2/02', description: 'Transporte rodoviario de carga, exceto produtos perigosos' },
  { code: '5611-2/01', description: 'Restaurantes e similares' },
  { code: '4120-4/00', description: 'Construcao de edificios' },
  { code: '7020-4/00', description: 'Atividades de consultoria em gestao empresarial' },
] as const;

export function personName(prng: Prng): string {
  const first = prng.pick(FIRST_NAMES);
  const [a = 'SILVA', b = 'COSTA'] = prng.sample(SURNAMES, 2);
  return prng.bool(0.5) ? `${first} ${a} ${b}` : `${first} ${a}`;
}

export function companyName(prng: Prng): string {
  const suffix = prng.pick(['LTDA', 'S.A.', 'EIRELI', 'ME'] as const);
  return `${prng.pick(COMPANY_WORDS)} ${prng.pick(COMPANY_KINDS)} ${suffix}`;
}

export function zipcode(prng: Prng): string {
  return `${String(prng.int(10, 99))}${prng.digits(3)}-${prng.digits(3)}`;
}

export function phone(prng: Prng): string {
  return `(${String(prng.int(11, 99))}) 9${prng.digits(4)}-${prng.digits(4)}`;
}
