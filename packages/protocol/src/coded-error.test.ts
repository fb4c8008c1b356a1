import { describe, expect, it } from 'vitest';
import { CodedError } from './coded-error.js';

class StoreError extends CodedError {
  static override code = 'ERR_STORE';
}
class StoreBusy extends StoreError {
  static override code = 'ERR_STORE_BUSY';
  constructor(waitedMs: number) {
    super(`locked (waited ${waitedMs} ms)`);
  }
}
class Named extends CodedError {
  static override code = 'ERR_NAMED';
  constructor() {
    super('m');
    this.name = 'AbortError';
  }
}
class Finer extends CodedError {
  static override code = 'ERR_FINER';
  override readonly code: 'a' | 'b';
  constructor(code: 'a' | 'b') {
    super(code);
    this.code = code;
  }
}

describe('CodedError', () => {
  it('gives each instance its class static code, and the class name as name', () => {
    const busy = new StoreBusy(5);
    expect(busy.code).toBe('ERR_STORE_BUSY');
    expect(busy.code).toBe(StoreBusy.code);
    expect(busy.name).toBe('StoreBusy');
    expect(busy.message).toBe('locked (waited 5 ms)');
    expect(new StoreError('x').code).toBe('ERR_STORE');
    expect(new CodedError('x').code).toBe(CodedError.code);
  });

  it('is an Error and an instance of every class above it', () => {
    const busy = new StoreBusy(1);
    expect(busy).toBeInstanceOf(Error);
    expect(busy).toBeInstanceOf(CodedError);
    expect(busy).toBeInstanceOf(StoreError);
    expect(new StoreError('x')).not.toBeInstanceOf(StoreBusy);
  });

  it('keeps a cause, a name the class sets, and an instance code finer than the class', () => {
    const cause = new Error('disk full');
    expect(new StoreError('write failed', { cause }).cause).toBe(cause);
    expect(new Named().name).toBe('AbortError');
    const finer = new Finer('b');
    expect(finer.code).toBe('b');
    expect(Finer.code).toBe('ERR_FINER');
  });
});
