/** Public entry of @mouthpiece/server: build the app in-process or start the whole service. */
export { buildApp, loggerOptions, type AppDeps } from './app.js';
export type { AppContext, AdminRoutesOptions } from './app-types.js';
export { startServer, type RunningServer } from './server.js';
export { loadConfig, CONFIG_DOCS, ConfigError, type Config, type TurnMode } from './config.js';
export { systemClock, type Clock } from './clock.js';
export { ApiError } from './errors.js';
export { createMemoryStores } from './storage/memory.js';
export type * from './storage/ports.js';
export { Permission } from './storage/ports.js';
export { generateCredential, hashSecret, parseCredentialId, verifySecret } from './auth/credential-secret.js';
export type { TurnSettings } from './turn/credentials.js';
