/**
 * The classification catalog of the spec ("Classification catalog"), written compactly:
 * `COUNTRY|Type|subtype|sides` with `-` for "none" and sides F, B, FB.
 * The sixteen proof-of-residence subtypes are unnamed in the spec; neutral names stand in.
 */
const CATALOG_SOURCE = `
ARG|DriversLicense|-|F
ARG|FederalID|-|B,F
BHR|FederalID|-|B,F
BRA|FederalCouncil|Accounting_Paper|B,F,FB
BRA|FederalCouncil|Accounting_Plastic|B,F
BRA|FederalCouncil|Administration_v1|B,F
BRA|FederalCouncil|Administration_v2|B,F
BRA|FederalCouncil|ArchitectureAndUrbanism|F
BRA|FederalCouncil|Biology|B,F,FB
BRA|FederalCouncil|Biomedicine|B,F
BRA|FederalCouncil|Chemistry|B,F
BRA|FederalCouncil|Dentistry|B,F
BRA|FederalCouncil|EngineeringAndAgronomy_Paper|B,F,FB
BRA|FederalCouncil|EngineeringAndAgronomy_Plastic|B,F
BRA|FederalCouncil|Fishery|B,F,FB
BRA|FederalCouncil|Lawyers|B,F
BRA|FederalCouncil|Medicine_Paper|B,F,FB
BRA|FederalCouncil|Medicine_Plastic|B,F
BRA|FederalCouncil|Musician|B,F
BRA|FederalCouncil|Nursing_v1|B,F,FB
BRA|FederalCouncil|Nursing_v2|B,F,FB
BRA|FederalCouncil|Nutrition|B,F
BRA|FederalCouncil|Pharmacy_Paper|B,F
BRA|FederalCouncil|Pharmacy_Plastic|B,F
BRA|FederalCouncil|PhysicalEducation|B,F,FB
BRA|FederalCouncil|Psychology|B,F,FB
BRA|FederalCouncil|Radiology|B,F,FB
BRA|FederalCouncil|SalesRepresentatives|F
BRA|FederalCouncil|SocialService|B,F
BRA|FederalCouncil|Veterinary|B,F
BRA|DriversLicense|BoatAndVessel|B,F,FB
BRA|DriversLicense|Digital|B,F,FB
BRA|DriversLicense|Printed|B,F,FB
BRA|DriversLicense|Resolution2021Digital|B,F,FB
BRA|DriversLicense|Resolution2021Paper|B,F,FB
BRA|FederalID|Decree2018Digital|B,F,FB
BRA|FederalID|Decree2018Paper|B,F,FB
BRA|FederalID|Decree2018Plastic|B,F
BRA|FederalID|Decree2022Paper|B,F,FB
BRA|FederalID|MainModel|B,F,FB
BRA|FederalRevenueService|CIC|F
BRA|FederalRevenueService|Plastic|F
BRA|FederalRevenueService|Printed|F
BRA|FederalRevenueService|Temporary|F
BRA|FirefighterID|RioDeJaneiro|B,F
BRA|ForeignID|-|B,F
BRA|MigratoryRegister|-|B,F
BRA|RefugeRequest|-|B,F,FB
BRA|Passport|-|F
BRA|VoterID|-|B,F
BRA|MilitaryID|Airforce|B,F
BRA|MilitaryID|Army_Paper|B,F
BRA|MilitaryID|Army_Temporary|B,F,FB
BRA|MilitaryID|MilitaryDischarge|B,F,FB
BRA|MilitaryID|Navy_Paper|B,FB
BRA|MilitaryID|Navy_Plastic|B,F
BRA|PoliceID|Alagoas|F
BRA|PoliceID|Amazonas|F
BRA|PoliceID|Bahia|B,F,FB
BRA|PoliceID|Ceara|F
BRA|PoliceID|DistritoFederal|B,F
BRA|PoliceID|EspiritoSanto|F
BRA|PoliceID|MatoGrossoDoSul|B,F,FB
BRA|PoliceID|MatoGrosso|B,F
BRA|PoliceID|MinasGerais_Paper|B,F
BRA|PoliceID|MinasGerais_Plastic|F
BRA|PoliceID|Para|B,F
BRA|PoliceID|Paraiba|B,F
BRA|PoliceID|Pernambuco|B,F
BRA|PoliceID|Piaui|F
BRA|PoliceID|RioDeJaneiro|B,F,FB
BRA|PoliceID|RioGrandeDoNorte|F
BRA|PoliceID|SaoPaulo|B,F,FB
BRA|Transportation|ANTT|B,F,FB
BRA|Transportation|CRLV_Digital|B,F,FB
BRA|Transportation|CRLV_Printed|B,F,FB
BRA|WorkAndSocialSecurityRegistry|Handwritten|B,F
BRA|WorkAndSocialSecurityRegistry|Printed|B,F
COL|DriversLicense|-|F
COL|FederalID|-|B,F
COL|Passport|-|F
ESP|FederalID|-|B,F
ITA|FederalID|-|B,F
MAR|DriversLicense|-|B,F
MEX|VoterID|-|F
PAK|FederalID|-|F,B
PER|FederalID_Paper|-|F
PER|FederalID_Plastic|-|F
PER|Passport|-|F
PRT|FederalID|-|F,B
PRT|Passport|-|F
PRY|FederalID|-|F
URY|FederalID|-|F
USA|DriversLicense|Florida|F
USA|DriversLicense|Georgia|F
USA|Passport|-|F
USA|SocialSecurityID|-|F
VEN|FederalID|-|F
VEN|Passport|-|F
`;

export const SIDES = { F: 'OnlyFront', B: 'OnlyBack', FB: 'FrontAndBack' } as const;
export type Side = (typeof SIDES)[keyof typeof SIDES];

export interface CatalogEntry {
  country: string;
  type: string;
  /** Absent for the catalog's "none": the member is then left out of the result. */
  subtype: string | undefined;
  sides: readonly Side[];
}

function parseSide(code: string): Side {
  if (code === 'F' || code === 'B' || code === 'FB') return SIDES[code];
  throw new Error(`catalog side ${code}`);
}

function parseCatalog(source: string): CatalogEntry[] {
  const entries = source
    .trim()
    .split('\n')
    .map((line): CatalogEntry => {
      const [country = '', type = '', subtype = '-', sides = ''] = line.split('|');
      return {
        country,
        type,
        subtype: subtype === '-' ? undefined : subtype,
        sides: sides.split(',').map(parseSide),
      };
    });
  for (let i = 1; i <= 16; i++) {
    entries.push({
      country: 'BRA',
      type: 'ProofOfResidence',
      subtype: `Provider${String(i).padStart(2, '0')}`,
      sides: [SIDES.F],
    });
  }
  return entries;
}

export const CATALOG: readonly CatalogEntry[] = parseCatalog(CATALOG_SOURCE);

/** The Brazilian identity documents most callers send; drawn more often to look like real traffic. */
export const COMMON_ENTRIES: readonly CatalogEntry[] = CATALOG.filter(
  (entry) => entry.country === 'BRA' && ['FederalID', 'DriversLicense'].includes(entry.type),
);
