import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { CATALOG } from '../../../src/sandbox/data/catalog.js';
import { cpfFor, EMPTY_CLASSIFICATION_UNDER_BYTES } from '../../../src/sandbox/scenarios.js';
import { FormData } from 'undici';
import { JPEG, PNG, call, formWith, startSandbox, withoutVolatile, type Envelope } from './helpers.js';

interface Classification {
  classification: {
    type: string;
    subtype?: string;
    country: string;
    sides: { side: string; page: number; fieldname: string; confidence: number }[];
  };
}
type ClassifyAnswer = Envelope<Classification[]> & {
  metadata: {
    filesInfo: { fieldname: string; name: string; size: number; mimetype: string; sha256: string }[];
  };
};
interface FaceAnswer {
  id: string;
  data: {
    match: boolean;
    similarity: number;
    idCards?: { base64: string }[];
    ocr?: Record<string, string>;
  };
}

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('POST /classify/v3', () => {
  it('classifies one multipart file and echoes the part name in every side', async () => {
    const { status, body } = await call<ClassifyAnswer>(sandbox, '/classify/v3', {
      form: formWith({ frente: JPEG }),
    });
    expect(status).toBe(200);
    expect(body.version).toBe('v3');
    expect(typeof body.metadata.timeSpent).toBe('number');
    expect(body.data.length).toBeGreaterThan(0);
    for (const result of body.data) {
      expect(result.classification.sides).toHaveLength(1);
      expect(result.classification.sides[0]?.fieldname).toBe('frente');
      expect(['OnlyFront', 'OnlyBack', 'FrontAndBack']).toContain(result.classification.sides[0]?.side);
      const entry = CATALOG.find(
        (e) =>
          e.country === result.classification.country &&
          e.type === result.classification.type &&
          e.subtype === result.classification.subtype,
      );
      expect(entry).toBeDefined();
    }
    const confidences = body.data.map((r) => r.classification.sides[0]?.confidence ?? 0);
    expect([...confidences].sort((a, b) => b - a)).toEqual(confidences);
    const [info] = body.metadata.filesInfo;
    expect(info).toMatchObject({ fieldname: 'frente', size: JPEG.length, mimetype: 'image/jpeg' });
    expect(info?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts base64 JSON and gives the same classification as multipart for the same bytes', async () => {
    const viaForm = await call<ClassifyAnswer>(sandbox, '/classify/v3', {
      form: formWith({ arquivo1: JPEG }),
    });
    const viaJson = await call<ClassifyAnswer>(sandbox, '/classify/v3', {
      json: { base64: { arquivo1: JPEG.toString('base64') } },
    });
    expect(viaJson.status).toBe(200);
    expect(viaJson.body.data).toEqual(viaForm.body.data);
    expect(viaJson.body.metadata.filesInfo[0]?.sha256).toBe(viaForm.body.metadata.filesInfo[0]?.sha256);
  });

  it('treats a URL as content without downloading it', async () => {
    const { status, body } = await call<ClassifyAnswer>(sandbox, '/classify/v3', {
      json: { urls: { documento: 'https://files.example.invalid/docs/cnh-frente.jpg' } },
    });
    expect(status).toBe(200);
    expect(body.metadata.filesInfo[0]).toMatchObject({
      fieldname: 'documento',
      name: 'cnh-frente.jpg',
      mimetype: 'image/jpeg',
    });
  });

  it(`answers an empty list for a file under ${String(EMPTY_CLASSIFICATION_UNDER_BYTES)} bytes`, async () => {
    const { status, body } = await call<ClassifyAnswer>(sandbox, '/classify/v3', {
      form: formWith({ verso: Buffer.from('tiny') }),
    });
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
  });

  it('refuses more than one file with the 400 envelope', async () => {
    const multi = await call(sandbox, '/classify/v3', { form: formWith({ frente: JPEG, verso: JPEG }) });
    expect(multi.status).toBe(400);
    expect(multi.body.error).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    const json = await call(sandbox, '/classify/v3', { json: { base64: { a: 'AAAA', b: 'AAAA' } } });
    expect(json.status).toBe(400);
    const both = await call(sandbox, '/classify/v3', {
      json: { base64: { a: 'AAAA' }, urls: { b: 'https://x.invalid/a' } },
    });
    expect(both.status).toBe(400);
    const none = await call(sandbox, '/classify/v3', { form: new FormData() });
    expect(none.status).toBe(400);
  });

  it('is deterministic apart from id and timeSpent', async () => {
    const a = await call<ClassifyAnswer>(sandbox, '/classify/v3', { form: formWith({ frente: PNG }) });
    const b = await call<ClassifyAnswer>(sandbox, '/classify/v3', { form: formWith({ frente: PNG }) });
    expect(a.body.id).not.toBe(b.body.id);
    expect(withoutVolatile(a.body)).toEqual(withoutVolatile(b.body));
  });
});

describe('POST /ocr-by-face/v1/tax-id/{CPF}', () => {
  const path = (cpf: string, query = '') => `/ocr-by-face/v1/tax-id/${cpf}${query}`;

  it('answers id and data only, with the OCR member spelled birthdate', async () => {
    const cpf = cpfFor('face-match');
    const { status, body } = await call<FaceAnswer>(sandbox, path(cpf), { form: formWith({ selfie: JPEG }) });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['data', 'id']);
    expect(body.data.match).toBe(true);
    expect(body.data.similarity).toBeGreaterThan(0.8);
    expect(body.data.idCards).toHaveLength(2);
    expect(Buffer.from(body.data.idCards?.[0]?.base64 ?? '', 'base64').subarray(0, 3)).toEqual(
      Buffer.from([0xff, 0xd8, 0xff]),
    );
    expect(Object.keys(body.data.ocr ?? {})).toEqual([
      'taxId',
      'name',
      'birthdate',
      'mothersName',
      'fathersName',
      'issuedAt',
    ]);
    expect(body.data.ocr?.taxId).toBe(cpf);
    expect(body.data.ocr?.birthdate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('accepts a masked CPF in the path and filters by repeated document_types[]', async () => {
    const cpf = cpfFor('face-match');
    const masked = `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
    const query = '?document_types[]=passport&document_types[]=drivers-license';
    const { status, body } = await call<FaceAnswer>(sandbox, path(masked, query), {
      form: formWith({ selfie: JPEG }),
    });
    expect(status).toBe(200);
    expect(body.data.idCards).toHaveLength(2);
  });

  it('answers 200 with only match and similarity when the selfie does not match', async () => {
    const { status, body } = await call<FaceAnswer>(sandbox, path(cpfFor('face-no-match')), {
      form: formWith({ selfie: JPEG }),
    });
    expect(status).toBe(200);
    expect(Object.keys(body.data).sort()).toEqual(['match', 'similarity']);
    expect(body.data.match).toBe(false);
  });

  it('answers 404 Not Found when no document is held, or none of the requested kinds', async () => {
    const none = await call(sandbox, path(cpfFor('face-no-document')), { form: formWith({ selfie: JPEG }) });
    expect(none.status).toBe(404);
    expect(none.body.error).toMatchObject({ statusCode: 404, error: 'Not Found' });
    const noPassport = await call(
      sandbox,
      path(cpfFor('face-without-passport'), '?document_types[]=passport'),
      {
        form: formWith({ selfie: JPEG }),
      },
    );
    expect(noPassport.status).toBe(404);
  });

  it('answers 422 for an invalid tax id and for a selfie that is not a JPEG', async () => {
    const badCpf = await call(sandbox, path('12345678900'), { form: formWith({ selfie: JPEG }) });
    expect(badCpf.status).toBe(422);
    expect(badCpf.body.error).toMatchObject({ error: 'Unprocessable Entity', message: 'invalid taxId' });
    const png = await call(sandbox, path(cpfFor('face-match')), {
      form: formWith({ selfie: PNG }, 'image/png'),
    });
    expect(png.status).toBe(422);
    const badKind = await call(sandbox, path(cpfFor('face-match'), '?document_types[]=boat'), {
      form: formWith({ selfie: JPEG }),
    });
    expect(badKind.status).toBe(422);
  });

  it('answers 400 when the selfie part is missing', async () => {
    const { status } = await call(sandbox, path(cpfFor('face-match')), { form: formWith({ foto: JPEG }) });
    expect(status).toBe(400);
  });
});
