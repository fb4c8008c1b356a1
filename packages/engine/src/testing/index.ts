// Fakes of the engine's seams for tests (DESIGN: only test fakes run in-process).
export {};
