import {
  generateChassis,
  generateCnpj,
  generateCpf,
  generatePlate,
  generateRenavam,
  preMercosurPlate,
} from '../identifiers.js';
import { isoDate, isoLocal, type Prng } from '../random.js';
import {
  ACTIVITIES,
  CITY_BY_UF,
  NEIGHBORHOODS,
  STREETS,
  UFS,
  companyName,
  personName,
  phone,
  zipcode,
} from './pools.js';

const MODELS = [
  { brandModel: 'VW/GOL 1.0', code: 150101, type: 'AUTOMOVEL', kind: 'PASSAGEIRO', category: 'PARTICULAR' },
  {
    brandModel: 'FIAT/STRADA FREEDOM',
    code: 152230,
    type: 'CAMINHONETE',
    kind: 'CARGA',
    category: 'PARTICULAR',
  },
  {
    brandModel: 'CHEV/ONIX 1.0MT LT',
    code: 101234,
    type: 'AUTOMOVEL',
    kind: 'PASSAGEIRO',
    category: 'PARTICULAR',
  },
  {
    brandModel: 'HONDA/CG 160 FAN',
    code: 801122,
    type: 'MOTOCICLETA',
    kind: 'PASSAGEIRO',
    category: 'PARTICULAR',
  },
  { brandModel: 'M.BENZ/ACCELO 1016', code: 508877, type: 'CAMINHAO', kind: 'CARGA', category: 'ALUGUEL' },
] as const;
const COLORS = ['BRANCA', 'PRATA', 'PRETA', 'VERMELHA', 'CINZA', 'AZUL'] as const;
const FUELS = ['ALCOOL/GASOLINA', 'GASOLINA', 'DIESEL', 'FLEX'] as const;
const LIENS = ['BANCO ALFA S.A.', 'FINANCEIRA HORIZONTE S.A.'] as const;

export interface VehicleKeys {
  licensePlate?: string | undefined;
  registryId?: string | undefined;
  chassis?: string | undefined;
}

type Owner = ReturnType<typeof buildOwner>;

function buildOwner(prng: Prng) {
  const company = prng.bool(0.35);
  const documentNumber = company ? generateCnpj(prng) : generateCpf(prng);
  const uf = prng.pick(UFS);
  const opened = prng.instant(1990, 2022);
  return {
    company,
    documentType: company ? 'CNPJ' : 'CPF',
    documentNumber,
    name: company ? companyName(prng) : personName(prng),
    uf,
    opened,
    address: {
      street: prng.pick(STREETS),
      number: String(prng.int(1, 3000)),
      neighborhood: prng.pick(NEIGHBORHOODS),
      zipcode: zipcode(prng),
      city: CITY_BY_UF[uf],
    },
    activity: prng.pick(ACTIVITIES),
    partner: { name: personName(prng), document: generateCpf(prng), type: 'SOCIO-ADMINISTRADOR' },
    phone: phone(prng),
    motherName: personName(prng),
    fatherName: prng.bool(0.8) ? personName(prng) : null,
    shareCapital: `${String(prng.int(10, 5000) * 1000)}.00`,
  };
}

function buildClient(owner: Owner) {
  return {
    name: owner.name,
    situation: owner.company ? 'ATIVA' : 'REGULAR',
    size: owner.company ? 'DEMAIS' : null,
    opening: owner.company ? isoLocal(owner.opened) : null,
    legalNatureCode: owner.company ? '206-2' : null,
    legalNatureDescription: owner.company ? 'Sociedade Empresaria Limitada' : null,
    shareCapital: owner.company ? owner.shareCapital : null,
    legalName: owner.company ? owner.name : null,
    documentNumber: owner.documentNumber,
    birthDate: owner.company ? null : isoLocal(owner.opened - 20 * 365 * 86_400_000),
    addresses: [owner.address],
    activities: owner.company ? [{ code: owner.activity.code, description: owner.activity.description }] : [],
    partners: owner.company ? [owner.partner] : [],
  };
}

/** The members both lookups share, derived from the seed; the known keys are kept as given. */
export function buildVehicleBase(prng: Prng, keys: VehicleKeys) {
  const model = prng.pick(MODELS);
  const owner = buildOwner(prng);
  const plate = keys.licensePlate ?? generatePlate(prng);
  const manufactureYear = prng.int(2008, 2024);
  const lien = prng.bool(0.3);
  const truck = model.type === 'CAMINHAO';
  const robbery = prng.bool(0.05);
  return {
    model,
    owner,
    licensePlate: plate,
    preMercosurLicensePlate: preMercosurPlate(plate),
    chassis: keys.chassis ?? generateChassis(prng),
    chassisRemark: prng.bool(0.05),
    engineNumber: prng.letters(3, 'ABCDEFGHJKLMNPRSTUVWXYZ') + prng.digits(7),
    licensePlateState: owner.uf,
    licensePlateCity: CITY_BY_UF[owner.uf],
    renavam: keys.registryId ?? generateRenavam(prng),
    invoicedDocumentType: prng.bool(0.8) ? owner.documentType : null,
    invoicedIdentificationNumber: owner.documentNumber,
    invoiceState: owner.uf,
    manufactureYear,
    modelYear: manufactureYear + prng.int(0, 1),
    maxTractionCapacity: truck ? prng.int(10, 40) : prng.int(1, 3),
    totalGrossWeight: truck ? prng.int(8, 23) : prng.int(1, 3),
    restrictions: {
      renainfRestrictionIndicator: prng.bool(0.1),
      renajudRestrictionIndicator: prng.bool(0.1),
      robberyOrTheft: robbery,
      recall: prng.bool(0.1),
      insuranceClaim: prng.bool(0.1),
      occurrence: robbery ? 'FURTO/ROUBO REGISTRADO' : null,
    },
    status: prng.bool(0.9) ? 'EM CIRCULACAO' : null,
    brandModel: model.brandModel,
    brandModelCode: prng.bool(0.9) ? model.code : null,
    vehicleGroup: model.type === 'MOTOCICLETA' ? 'MOTO' : 'LEVE',
    vehicleType: model.type,
    kind: model.kind,
    color: prng.pick(COLORS),
    fuel: prng.pick(FUELS),
    category: model.category,
    origin: prng.bool(0.85) ? 'NACIONAL' : 'IMPORTADO',
    potency: prng.bool(0.9) ? prng.int(70, 250) : null,
    cylinders: prng.bool(0.9) ? prng.pick([150, 999, 1600, 1998, 4800]) : null,
    axle: prng.int(2, truck ? 3 : 2),
    capacity: model.type === 'MOTOCICLETA' ? 2 : prng.int(2, 5),
    fuelTankCapacityLiters: prng.bool(0.7) ? prng.int(14, 150) : null,
    loadCapacityKg: model.kind === 'CARGA' ? prng.int(600, 9000) : null,
    yearOfLastLicensing: prng.bool(0.9) ? prng.int(Math.max(manufactureYear, 2020), 2025) : null,
    proprietaryName: owner.name,
    proprietaryDocumentNumber: owner.documentNumber,
    proprietaryDocumentType: owner.documentType,
    alienationInstitutionName: lien ? prng.pick(LIENS) : null,
    alienationInstitutionDocument: lien ? generateCnpj(prng) : null,
    licensedStatus: prng.bool(0.85) ? 'LICENCIADO' : null,
    licensedUntil: prng.bool(0.85) ? `VALIDO ATE ${isoDate(Date.UTC(2025, prng.int(0, 11), 28))}` : null,
    debitTypeGuid: prng.uuid(),
  };
}

export type VehicleBase = ReturnType<typeof buildVehicleBase>;

/** `data` of GET /vehicles/v3: capitalised Invoiced* members, `rfbRestrictionIndicator`, `contacts`. */
export function toSyncVehicle(base: VehicleBase, prng: Prng): Record<string, unknown> {
  const {
    model: _model,
    owner,
    invoicedDocumentType,
    invoicedIdentificationNumber,
    restrictions,
    ...rest
  } = base;
  return {
    ...rest,
    InvoicedDocumentType: invoicedDocumentType,
    InvoicedIdentificationNumber: invoicedIdentificationNumber,
    restrictions: { ...restrictions, rfbRestrictionIndicator: prng.bool(0.05) },
    client: {
      ...buildClient(owner),
      contacts: { phones: [owner.phone], emails: prng.bool(0.6) ? ['contato@example.com'] : [] },
    },
  };
}

/** `data.vehicleData` of the async query: lowercase invoiced members, `activeFlag`, parents' names. */
export function toAsyncVehicle(base: VehicleBase): Record<string, unknown> {
  const { model: _model, owner, debitTypeGuid: _guid, ...rest } = base;
  return {
    ...rest,
    activeFlag: null,
    client: {
      ...buildClient(owner),
      motherName: owner.company ? null : owner.motherName,
      fatherName: owner.company ? null : owner.fatherName,
      birthDateStr: owner.company ? null : isoDate(owner.opened - 20 * 365 * 86_400_000),
    },
  };
}
