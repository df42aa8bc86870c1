/**
 * Operation name of each vendor route, used for counters and fingerprints. The names follow the
 * service's operation names; the async lookup splits into its two calls.
 */
export const OPERATION_BY_ROUTE = {
  'POST /classify/v3': 'classify-document',
  'POST /ocr-by-face/v1/tax-id/:cpf': 'face-document-lookup',
  'GET /lawsuits/v2': 'lawsuits-by-party',
  'GET /lawsuits-summary/v1': 'lawsuits-summary',
  'GET /lawsuits-by-number/v2': 'lawsuit-by-number',
  'GET /vehicles/v3': 'vehicle',
  'POST /vehicles-async/v3': 'vehicle-async',
  'GET /vehicles-async/v3/:requestId': 'vehicle-async-query',
  'GET /receita-federal-and-sintegra': 'state-registration',
  'GET /receita-federal-cnpj-qsa': 'company-partners',
  'GET /esocial-qualificacao-cadastral': 'esocial-eligibility',
} as const;

export type SandboxOperation = (typeof OPERATION_BY_ROUTE)[keyof typeof OPERATION_BY_ROUTE];

const LOOKUP: ReadonlyMap<string, string> = new Map(Object.entries(OPERATION_BY_ROUTE));

export function operationOf(method: string, routeUrl: string | undefined): string | undefined {
  return routeUrl === undefined ? undefined : LOOKUP.get(`${method} ${routeUrl}`);
}
