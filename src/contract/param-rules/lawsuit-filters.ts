import { z } from 'zod';
import { isValidIsoDate } from '../documents/dates.js';
import { COURTS, LAWSUIT_FIELDS, LAWSUIT_STATUSES, PART_POLES, SEGMENTS } from '../vocabulary.js';
import { checkedText, oneOf, oneOrMany, presentKeys } from './fields.js';

/**
 * Optional filters of GET /lawsuits/v2 (vendor-api.md, "Optional filters"). Values use the
 * spelling of the spec's tables: upper case, no accents, no punctuation. Filters named in the
 * plural take one value or a list; after parsing they are always a list.
 */

// Subjects and classes come from the national standard lists, which the spec does not
// reproduce, so only their spelling is checked: upper-case words separated by single blanks.
const UPPER_WORDS = /^[A-Z0-9]+(?: [A-Z0-9]+)*$/;
const upperWords = checkedText(
  (value) => UPPER_WORDS.test(value),
  'must be upper-case letters and digits separated by single blanks, without accents or punctuation (e.g. DANO MORAL)',
);

const isoDate = checkedText(isValidIsoDate, 'must be a real date written YYYY-MM-DD');

const courtsEnum = oneOf(COURTS as [string, ...string[]], 'courts of the vendor list');

export const lawsuitFilterShape = {
  grade: z
    .number({
      error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number from 1 to 4'),
    })
    .int('must be a whole number from 1 to 4')
    .min(1, 'must be from 1 to 4')
    .max(4, 'must be from 1 to 4')
    .optional(),
  courts: oneOrMany(courtsEnum).optional(),
  partPole: oneOf(PART_POLES, 'poles').optional(),
  lawsuitStatuses: oneOrMany(oneOf(LAWSUIT_STATUSES, 'lawsuit statuses')).optional(),
  lawsuitFields: oneOrMany(oneOf(LAWSUIT_FIELDS, 'branches of law')).optional(),
  topics: oneOrMany(upperWords).optional(),
  lawsuitTypes: oneOrMany(upperWords).optional(),
  distributionDate: isoDate.optional(),
  distributionDateFinal: isoDate.optional(),
  distributionDateEqual: isoDate.optional(),
  segment: oneOf(SEGMENTS, 'justice segments').optional(),
};

export const LAWSUIT_FILTER_KEYS = Object.keys(lawsuitFilterShape) as (keyof typeof lawsuitFilterShape)[];

interface DateFilters {
  distributionDate?: string | undefined;
  distributionDateFinal?: string | undefined;
  distributionDateEqual?: string | undefined;
}

/**
 * The period rules (vendor-api.md, "Limits": distributionDateFinal only together with
 * distributionDate). A specific date next to a period is contradictory, so it is refused too,
 * as is a period that ends before it starts: both would only buy an empty answer.
 */
export function dateFilterProblems(value: DateFilters): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const { distributionDate: from, distributionDateFinal: to, distributionDateEqual: equal } = value;
  if (to !== undefined && from === undefined) {
    problems.push({ path: 'distributionDateFinal', message: 'is used only together with distributionDate' });
  }
  if (equal !== undefined && presentKeys(value, ['distributionDate', 'distributionDateFinal']).length > 0) {
    problems.push({
      path: 'distributionDateEqual',
      message:
        'cannot be combined with distributionDate or distributionDateFinal; use either a date or a period',
    });
  }
  if (from !== undefined && to !== undefined && to < from) {
    problems.push({ path: 'distributionDateFinal', message: 'must not be before distributionDate' });
  }
  return problems;
}
