/**
 * The closed event maps, checked by the compiler: session-events.test-d.ts compiles cleanly (every
 * documented event and payload types), and each of its `@ts-expect-error` lines is an error of
 * its own once the directive is taken away (a misspelt event name does not compile).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const file = fileURLToPath(new URL('./session-events.test-d.ts', import.meta.url));
const protocol = fileURLToPath(new URL('../../protocol/src/index.ts', import.meta.url));
const DIRECTIVE = /\/\/ @ts-expect-error\b.*$/;

/** The client's compiler settings (tsconfig.json), the protocol read from its sources. */
const options: ts.CompilerOptions = {
  noEmit: true,
  strict: true,
  noUncheckedIndexedAccess: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: [],
  skipLibCheck: true,
  paths: { '@mouthpiece/protocol': [protocol] },
};

/** Compiles the type tests, optionally with their text rewritten; the errors in that file, by line. */
const parsed = new Map<string, ts.SourceFile | undefined>(); // the other files, parsed once for both tests

function errorsIn(rewrite: (text: string) => string = (t) => t): Array<{ line: number; message: string }> {
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang, onError, create) => {
    if (f === file) return ts.createSourceFile(f, rewrite(read(f)!), lang);
    if (!parsed.has(f)) parsed.set(f, getSourceFile(f, lang, onError, create));
    return parsed.get(f);
  };
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => ({
      line: d.file!.getLineAndCharacterOfPosition(d.start!).line + 1,
      message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
    }));
}

/** A whole program with the DOM types takes seconds to check on a busy machine. */
const COMPILE_TIMEOUT_MS = 90_000;

describe('closed event maps (type-level)', () => {
  const lines = readFileSync(file, 'utf8').split('\n');
  const expected = lines.flatMap((l, i) => (DIRECTIVE.test(l) ? [i + 2] : [])); // the line after each

  it(
    'the type tests compile: every documented event works, every @ts-expect-error meets its error',
    () => {
      expect(expected.length).toBeGreaterThanOrEqual(6);
      expect(errorsIn()).toEqual([]);
    },
    COMPILE_TIMEOUT_MS,
  );

  it(
    'without the directives, each of those lines is a compile error (a misspelt name is refused)',
    () => {
      const errors = errorsIn((text) =>
        text
          .split('\n')
          .map((l) => l.replace(DIRECTIVE, ''))
          .join('\n'),
      );
      expect([...new Set(errors.map((e) => e.line))]).toEqual(expected);
      expect(errors.find((e) => e.line === expected[0])?.message).toMatch(/"stateChnage"/);
    },
    COMPILE_TIMEOUT_MS,
  );
});
