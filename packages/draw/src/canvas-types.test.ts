/**
 * The package compiles without DOM types, so this checks what browser.ts assumes: the browser's
 * canvases and contexts (lib.dom.d.ts) satisfy CanvasLike and Context2D. (@napi-rs/canvas's are
 * checked by the engine's build: its renderers hand them to the drawing.)
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const canvasTs = fileURLToPath(new URL('./canvas.ts', import.meta.url));

function problems(source: string, lib: string[]): string[] {
  const file = fileURLToPath(new URL('./__canvas-types-check.ts', import.meta.url));
  const options: ts.CompilerOptions = {
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib,
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => (f === file ? source : read(f));
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => f === file || exists(f);
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (f, v) => (f === file ? ts.createSourceFile(f, source, v, true) : getSource(f, v));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('Context2D and CanvasLike', () => {
  it("the browser's OffscreenCanvas, <canvas> and their 2d contexts satisfy them", () => {
    const source = `
      import type { CanvasLike, Context2D, ImageLike } from ${JSON.stringify(canvasTs.replace(/\.ts$/, '.js'))};
      const off: CanvasLike = new OffscreenCanvas(1, 1);
      const el: CanvasLike = document.createElement('canvas');
      const a: Context2D | null = new OffscreenCanvas(1, 1).getContext('2d');
      const b: Context2D | null = document.createElement('canvas').getContext('2d');
      declare const bitmap: ImageBitmap;
      const pic: ImageLike = bitmap;
      export { off, el, a, b, pic };
    `;
    expect(problems(source, ['lib.es2022.d.ts', 'lib.dom.d.ts'])).toEqual([]);
  });

  it('a context missing a call the drawing makes does not satisfy Context2D', () => {
    const source = `
      import type { Context2D } from ${JSON.stringify(canvasTs.replace(/\.ts$/, '.js'))};
      declare const c: Omit<CanvasRenderingContext2D, 'roundRect'>;
      const x: Context2D = c;
      export { x };
    `;
    expect(problems(source, ['lib.es2022.d.ts', 'lib.dom.d.ts']).join('\n')).toMatch(/roundRect/);
  });
});
