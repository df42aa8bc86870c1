/**
 * Response bodies shaped like the samples of vendor-api.md, with its quirks. Every body
 * carries an extra `auditOnly` member the spec does not list, to show unknown fields are kept.
 */
export const classifySample = {
  id: 'cls-1',
  version: 'v3',
  data: [
    {
      classification: {
        type: 'DriversLicense',
        subtype: 'Digital',
        country: 'BRA',
        sides: [{ side: 'FrontAndBack', page: 0, fieldname: 'documento', confidence: 0.98 }],
      },
      auditOnly: 'kept',
    },
  ],
  metadata: {
    timeSpent: 1.25,
    filesInfo: [
      {
        fieldname: 'documento',
        name: 'documento.jpg',
        size: 12,
        pages: 1,
        mimetype: 'image/jpeg',
        encoding: '7bit',
        sha256: 'ab',
      },
    ],
  },
  auditOnly: 'kept',
};

export const faceMatchSample = {
  id: 'face-1',
  data: {
    idCards: [{ base64: '/9j/AAAA' }],
    similarity: 0.93,
    match: true,
    // The sample spells the member `birthdate`; the table says `birthDate`.
    ocr: {
      taxId: '52998224725',
      name: 'MARIA',
      birthdate: '1990-02-01',
      mothersName: 'ANA',
      fathersName: 'JOSE',
      issuedAt: '2015-03-04',
    },
  },
};

export const faceNoMatchSample = { id: 'face-2', data: { match: false, similarity: 0.12 } };

export const lawsuitRecord = {
  urlProcesso: 'https://tj.example/p/1',
  numeroProcessoUnico: '00110060720168200100',
  grauProcesso: 1,
  tribunal: 'TJ-RN',
  uf: 'RN',
  classeProcessual: { nome: 'PROCEDIMENTO COMUM CIVEL', codigoCNJ: '7' },
  assuntosCNJ: [{ titulo: 'DANO MORAL' }],
  dataDistribuicao: '2016-05-01T10:00:00',
  partes: [
    {
      tipo: 'AUTOR',
      nome: 'MARIA',
      polo: 'ATIVO',
      cpf: '52998224725',
      advogados: [{ nome: 'ADV', oab: { uf: 'RN', numero: '123', tipo: 'A' } }],
    },
  ],
  movimentos: [
    {
      indice: 1,
      data: '2016-05-02T00:00:00',
      eMovimento: true,
      nomeOriginal: ['DISTRIBUIDO'],
      movimentadoPor: { nome: 'X', cargo: 'Y' },
    },
  ],
  valorCausa: { moeda: 'BRL', valor: 1000.5 },
  eSegredoJustica: false,
  dataProcessamento: '2024-01-01T00:00:00.123',
  statusPredictus: { statusProcesso: 'EM TRAMITACAO', julgamentos: [], ramoDireito: 'DIREITO CIVIL' },
  auditOnly: 'kept',
};

// The party search at v2 answers `version: v1` (vendor-api.md, "Versioning").
export const lawsuitsSample = {
  id: 'law-1',
  version: 'v1',
  data: [lawsuitRecord],
  metadata: { timeSpent: 0.4 },
};

export const summarySample = {
  id: 'sum-1',
  version: 'v1',
  data: [
    {
      total: 3,
      totalByCourt: { 'TJ-SP': 2, 'TRT-2': 1 },
      totalByJustice: { 'JUSTICA ESTADUAL': 2 },
      totalByYear: { '2020': 3 },
    },
  ],
  metadata: { timeSpent: 0.1 },
};

export const vehicleRecord = {
  debitTypeGuid: 'guid',
  licensePlate: 'ABC1D23',
  preMercosurLicensePlate: null,
  chassis: '9BWZZZ377VT004251',
  renavam: '00639884962',
  // Capitalised in the synchronous lookup (vendor-api.md, "Vehicle record").
  InvoicedDocumentType: 'CNPJ',
  InvoicedIdentificationNumber: '11222333000181',
  manufactureYear: 2020,
  modelYear: 2021,
  restrictions: { robberyOrTheft: false, recall: false, occurrence: null, rfbRestrictionIndicator: false },
  status: null,
  brandModelCode: null,
  potency: null,
  client: { name: null, addresses: [], activities: [], partners: [], contacts: { phones: [], emails: [] } },
  auditOnly: 'kept',
};

export const vehicleSample = {
  id: 'veh-1',
  version: 'v3',
  data: vehicleRecord,
  metadata: { timeSpent: 0.3 },
};

export const vehicleNotFoundSample = {
  id: 'veh-404',
  version: 'v3',
  error: { statusCode: 404, error: 'Not Found', message: 'Nenhum dado encontrado para a placa ABC1D23' },
};

// The reference table calls the member `metada` (vendor-api.md, "POST /vehicles-async/v3").
export const vehicleSearchCreatedSample = { id: 'search-1', version: 'v3Async', metada: { timeSpent: 0.05 } };

export const vehicleSearchDoneSample = {
  id: 'query-7',
  version: 'v3Async',
  data: {
    status: 'sucessful',
    requestId: 'search-1',
    licensePlate: 'ABC1D23',
    createdAt: '2026-01-01T00:00:00.000Z',
    vehicleData: {
      ...vehicleRecord,
      InvoicedDocumentType: undefined,
      invoicedDocumentType: 'CPF',
      activeFlag: null,
    },
    webhook: { url: 'http://127.0.0.1:1/hook', method: 'POST', headers: {}, body: {} },
  },
  metadata: { timeSpent: 0.02 },
};

export const stateRegistrationSample = {
  id: 'sr-1',
  version: 'v2',
  data: {
    cnpj: '11222333000181',
    sintegra: {
      inscricoesEstaduais: [
        {
          cnpj: '11222333000181',
          inscricaoEstadual: '110042490114',
          uf: 'SP',
          dataSituacaoCadastral: '01/01/2020',
          situacaoCadastralTratada: 1,
          atividadesEconomicasSecundarias: [],
          camposExclusivos: {},
        },
      ],
    },
  },
  metadata: { timeSpent: 2 },
};

export const partnersSample = {
  id: 'qsa-1',
  version: 'v2',
  data: {
    cnpj: '11222333000181',
    receitaFederalQsa: {
      qsa: [
        {
          nome: 'MARIA',
          qualificacao: '49-Socio-Administrador',
          nomeRepresentanteLegal: '',
          qualificacaoRepresentanteLegal: '',
          paisOrigem: '',
        },
      ],
      urlComprovante: 'https://proof.example/1',
    },
  },
  metadata: { timeSpent: 1 },
};

const esocialMembers = {
  cpf: '52998224725',
  eSocialQualificacaoCadastral: {
    nome: 'MARIA',
    dataNascimento: '01/02/1990',
    cpf: '52998224725',
    nis: '71282677380',
    mensagem: 'OK',
    orientacao: '',
    urlComprovante: 'https://proof.example/2',
  },
};

// The sample has the members at the top level; the reference table puts them under `data`.
export const esocialTopLevelSample = { ...esocialMembers, auditOnly: 'kept' };
export const esocialWrappedSample = {
  id: 'es-1',
  version: 'v1',
  data: esocialMembers,
  metadata: { timeSpent: 0.7 },
};
