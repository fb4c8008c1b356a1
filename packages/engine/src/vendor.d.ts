// Declarations for dependencies that ship no usable types (see docs/design.md §3.2: wrtc's bundled types
// do not compile; espeak's WASM build has none). Only what we call is declared.
declare module '@echogarden/espeak-ng-emscripten' {
  const init: () => Promise<unknown>;
  export default init;
}
