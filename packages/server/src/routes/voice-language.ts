/**
 * `GET /v1/voices?language=`: which voices speak a language. A voice matches when its BCP 47 tag
 * and the asked one agree on every subtag both have, case-insensitively: `fi` finds `fi` and
 * `fi-FI`, `fi-FI` finds a plain `fi` voice, `pt-BR` finds `pt-BR` but not `pt-PT`, `en` every
 * English. A tag no voice speaks finds none (an empty list, not an error).
 */
import { ApiError } from '../errors.js';
import { oneQueryValue } from '../single-value.js';

const TAG = /^[A-Za-z0-9]{1,8}(-[A-Za-z0-9]{1,8})*$/;

/** The `language` filter of a request (undefined: no filter), or a 400 for a value that is not one tag. */
export function languageFilter(query: unknown): ((tag: string) => boolean) | undefined {
  const value = oneQueryValue(query, 'language');
  if (value === undefined) return undefined;
  if (value.length > 35 || !TAG.test(value))
    throw new ApiError(
      'INVALID_REQUEST',
      'Query parameter "language" must be a language tag like fi or pt-BR (letters, digits and -)',
    );
  const asked = value.toLowerCase().split('-');
  return (tag) => {
    const have = tag.toLowerCase().split('-');
    const n = Math.min(asked.length, have.length);
    for (let i = 0; i < n; i++) if (asked[i] !== have[i]) return false;
    return true;
  };
}
