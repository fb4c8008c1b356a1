export * from './errors.js';
export * from './states.js';
export * from './data-channel.js';
export * from './limits.js';
export * from './schemas.js';
export * from './emitter.js';
export * from './session-choices.js';
export * from './avatar-id.js';
